import { mkdtempSync, rmSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { type App, buildApp } from '../../../src/app.ts'
import { loadConfig } from '../../../src/config.ts'
import type { AppContext } from '../../../src/context.ts'
import { Worker, type WorkerLogger } from '../../../src/infra/queue/index.ts'
import { taskRegistry } from '../../../src/jobs/registry.ts'
import { createContext } from '../../../src/main/context.ts'
import type { WebhookRuntimeOptions } from '../../../src/modules/webhooks/index.ts'
import type { Clock } from '../../../src/shared/clock.ts'
import type { TestDatabase } from '../../helpers/database.ts'
import {
  type Hit,
  type Receiver,
  startReceiver,
  TEST_CA,
} from '../../unit/http-egress/tls-receiver.ts'

export const SECRET = "It's a Secret to Everybody"
export const silentLogger: WorkerLogger = { info() {}, warn() {}, error() {} }

export interface WebhookTestApp {
  app: App
  ctx: AppContext
  createTenant(): Promise<{ tenantId: string; testKey: string; liveKey: string }>
  /** A worker over the app's database and clock, for `runOnce()` (not started). */
  worker(options?: { concurrency?: number }): Worker
  close(): Promise<void>
}

/**
 * The real API on a test database, whose webhook sender trusts the test CA and may reach
 * 127.0.0.1 — given to this instance only, as options, never through the environment.
 */
export async function createWebhookTestApp(
  database: TestDatabase,
  options: { clock?: Clock; env?: Record<string, string>; webhooks?: WebhookRuntimeOptions } = {},
): Promise<WebhookTestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cp-webhooks-'))
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    SECRET_KEY: 'test-secret-key-test-secret-key-0123456789',
    LOG_LEVEL: 'silent',
    PUBLIC_URL: 'http://127.0.0.1:18080',
    CONTENT_URL: 'http://127.0.0.1:18081',
    CONTENT_ORIGINS: 'single',
    RATE_LIMIT_PER_MINUTE: '100000',
    ...options.env,
  })
  const ctx = await createContext(config, {
    db: database.db,
    clock: options.clock,
    webhooks: { ca: TEST_CA, allowAddresses: ['127.0.0.1'], ...options.webhooks },
  })
  const app = await buildApp(ctx)
  return {
    app,
    ctx,
    async createTenant() {
      const t = await ctx.services.tenants.createTenant({ name: 'Webhook tenant' })
      return { tenantId: t.tenantId, testKey: t.testKey.key, liveKey: t.liveKey.key }
    },
    worker(workerOptions = {}) {
      return new Worker(ctx.db, taskRegistry(ctx), {
        clock: ctx.clock,
        concurrency: workerOptions.concurrency ?? 4,
        logger: silentLogger,
      })
    },
    async close() {
      await app.close()
      await ctx.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export type RouteHandler = (req: IncomingMessage, res: ServerResponse, body: string) => void

/** One HTTPS receiver whose behaviour is chosen per path; hits are recorded per path. */
export interface RoutedReceiver {
  receiver: Receiver
  url(path: string): string
  route(path: string, handler: RouteHandler): void
  hitsOf(path: string): Hit[]
  close(): Promise<void>
}

export async function startRoutedReceiver(): Promise<RoutedReceiver> {
  const routes = new Map<string, RouteHandler>()
  const receiver = await startReceiver((req, res, body) => {
    const handler = routes.get((req.url ?? '').split('?')[0] ?? '')
    if (handler) return handler(req, res, body)
    res.statusCode = 204
    res.end()
  })
  return {
    receiver,
    url: (path) => `https://127.0.0.1:${receiver.port}${path}`,
    route: (path, handler) => routes.set(path, handler),
    hitsOf: (path) => receiver.hits.filter((h) => (h.url.split('?')[0] ?? '') === path),
    close: () => receiver.close(),
  }
}

/** Answers `status` with a small JSON body. */
export function answer(status: number, extra: Record<string, string> = {}): RouteHandler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...extra })
    res.end(JSON.stringify({ status }))
  }
}

/** Polls `check` every `intervalMs` (20) until it returns true; throws after `timeoutMs`. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  intervalMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(intervalMs)
  }
}
