// Runs one package ingest in a fresh process so its peak RSS is its own; prints JSON.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../src/config.ts'
import { createContext } from '../src/main/context.ts'

const zipPath = process.argv[2]
if (!zipPath) throw new Error('usage: upload.child.ts ZIP')
const dataDir = mkdtempSync(join(tmpdir(), 'cp-bench-'))
const config = loadConfig({
  DATA_DIR: dataDir,
  SECRET_KEY: 'bench-secret-bench-secret-bench-secret-0000',
  LOG_LEVEL: 'silent',
})
const ctx = await createContext(config)
const tenant = await ctx.services.tenants.createTenant({ name: 'bench' })
const rssBefore = process.memoryUsage().rss
const started = process.hrtime.bigint()
const detail = await ctx.services.packages.createFromZip(
  { tenantId: tenant.tenantId, mode: 'test' },
  { zipPath, filename: 'bench.zip', uploadedBy: null },
)
const seconds = Number(process.hrtime.bigint() - started) / 1e9
await ctx.close()
rmSync(dataDir, { recursive: true, force: true })
process.stdout.write(
  `${JSON.stringify({
    seconds,
    files: detail.versions[0]?.file_count,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    rssBeforeMiB: rssBefore / 1024 / 1024,
  })}\n`,
)
