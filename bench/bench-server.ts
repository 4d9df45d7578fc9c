// A real Courseport process for benchmarks: fresh data dir (SQLite by default, or
// BENCH_DATABASE_URL), both origins on free loopback ports, no worker. Prints one JSON line:
// { api, content, key } and serves until SIGTERM, then removes its data directory.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp, buildContentApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { createContext } from '../src/main/context.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'cp-bench-server-'))
const config = loadConfig({
  DATA_DIR: dataDir,
  DATABASE_URL: process.env.BENCH_DATABASE_URL,
  SECRET_KEY: 'bench-secret-bench-secret-bench-secret-0000',
  LOG_LEVEL: 'silent',
  RATE_LIMIT_PER_MINUTE: '0',
  PORT: '0',
  CONTENT_PORT: '0',
  PUBLIC_URL: 'http://127.0.0.1:1',
  CONTENT_URL: 'http://127.0.0.1:2',
  CONTENT_ORIGINS: 'single',
})
const ctx = await createContext(config)
const tenant = await ctx.services.tenants.createTenant({ name: 'bench', plan: 'enterprise' })
const api = await buildApp(ctx)
const content = await buildContentApp(ctx)
const apiUrl = await api.listen({ host: '127.0.0.1', port: 0 })
const contentUrl = await content.listen({ host: '127.0.0.1', port: 0 })
process.stdout.write(
  `${JSON.stringify({ api: apiUrl, content: contentUrl, key: tenant.testKey.key, dataDir })}\n`,
)
// Its data (a WAL of up to 80 MB after a runtime run) goes with it.
process.once('SIGTERM', async () => {
  await Promise.all([api.close(), content.close()])
  await ctx.close()
  rmSync(dataDir, { recursive: true, force: true })
  process.exit(0)
})
