import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type App, buildApp, buildContentApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import type { AppContext } from '../../src/context.ts'
import { createContext } from '../../src/main/context.ts'
import type { Clock } from '../../src/shared/clock.ts'
import type { TestDatabase } from './database.ts'

export interface TestTenant {
  tenantId: string
  testKey: string
  liveKey: string
}

export interface TestApp {
  app: App
  content: App
  ctx: AppContext
  dataDir: string
  /** A new tenant (plan default sandbox) with one key per mode. */
  createTenant(plan?: string): Promise<TestTenant>
  close(): Promise<void>
}

/**
 * The real application on a test database, with blobs in a temp directory. `env` overrides
 * configuration variables exactly as an operator would set them.
 */
export async function createTestApp(
  database: TestDatabase,
  options: { env?: Record<string, string>; clock?: Clock } = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cp-app-'))
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    SECRET_KEY: 'test-secret-key-test-secret-key-0123456789',
    LOG_LEVEL: 'silent',
    PUBLIC_URL: 'http://127.0.0.1:18080',
    CONTENT_URL: 'http://127.0.0.1:18081',
    // One shared content origin unless a test asks for tenant origins (CONTENT_ORIGINS=tenant with
    // a host-name CONTENT_URL, as test/integration/content and dispatches and test/e2e do).
    CONTENT_ORIGINS: 'single',
    RATE_LIMIT_PER_MINUTE: '100000',
    ...options.env,
  })
  const ctx = await createContext(config, { db: database.db, clock: options.clock })
  const app = await buildApp(ctx)
  const content = await buildContentApp(ctx)
  return {
    app,
    content,
    ctx,
    dataDir,
    async createTenant(plan) {
      const t = await ctx.services.tenants.createTenant({ name: 'Test tenant', plan })
      return { tenantId: t.tenantId, testKey: t.testKey.key, liveKey: t.liveKey.key }
    },
    async close() {
      await app.close()
      await content.close()
      await ctx.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` }
}
