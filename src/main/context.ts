import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import type { Config } from '../config.ts'
import type { AppContext } from '../context.ts'
import { createBlobStore } from '../infra/blobs/create-blob-store.ts'
import { type Db, migrateToLatest, openDatabase } from '../infra/db/database.ts'
import { createTransactionRunner } from '../infra/db/group-commit.ts'
import { describeDatabaseUrl, waitForDatabase } from '../infra/db/wait-for-database.ts'
import { createHttpEgressClient } from '../infra/http-egress/index.ts'
import { createPrometheusMetrics, readQueueStats } from '../infra/metrics/index.ts'
import { createSlideRenderer } from '../infra/office/index.ts'
import { createQueue } from '../infra/queue/index.ts'
import { ConversionService } from '../modules/conversions/conversion.service.ts'
import { createDispatchServices } from '../modules/dispatches/index.ts'
import { PackageService } from '../modules/packages/package.service.ts'
import { UploadService } from '../modules/packages/upload.service.ts'
import { QuickPublishService } from '../modules/publish/quick-publish.service.ts'
import { RuntimeService } from '../modules/runtime/runtime.service.ts'
import { LaunchService } from '../modules/sessions/launch.service.ts'
import { SessionService } from '../modules/sessions/session.service.ts'
import { TenantService } from '../modules/tenants/tenant.service.ts'
import { createWebhookService, type WebhookRuntimeOptions } from '../modules/webhooks/index.ts'
import { type Clock, systemClock } from '../shared/clock.ts'

/**
 * Opens the configured database, waits for it to answer (DATABASE_STARTUP_WAIT_SECONDS, with
 * backoff: databases often start after the applications) and brings its schema up to date.
 * Throws `DatabaseUnreachableError` (one line naming DATABASE_URL, never its password).
 */
export async function openMigratedDatabase(
  config: Config,
  options: { migrate?: boolean } = {},
): Promise<{ db: Db; applied: string[] }> {
  const db = openDatabase(config.databaseUrl, {
    poolSize: config.database.poolSize,
    connectTimeoutMs: config.database.connectTimeoutMs,
  })
  try {
    await waitForDatabase(db, config.databaseUrl, {
      timeoutMs: config.database.startupWaitSeconds * 1000,
      onRetry: ({ attempt, delayMs, reason }) => {
        if (attempt === 1 || attempt % 5 === 0) {
          process.stderr.write(
            `waiting for the database (${describeDatabaseUrl(config.databaseUrl)}: ${reason}); ` +
              `next try in ${delayMs} ms, giving up after DATABASE_STARTUP_WAIT_SECONDS=${config.database.startupWaitSeconds}\n`,
          )
        }
      },
    })
    const applied = options.migrate === false ? [] : await migrateToLatest(db)
    return { db, applied }
  } catch (err) {
    await db.close().catch(() => {})
    throw err
  }
}

// Long on purpose: wires every service in dependency order; splitting would only pass the half-
// built context around.
/**
 * Opens the database (migrating it unless told not to) and the blob store, and wires the
 * services. The caller owns the result and must `close` it.
 */
export async function createContext(
  config: Config,
  options: {
    clock?: Clock
    migrate?: boolean
    db?: Db
    /** Test/development knobs for webhook sending (a test CA, an allowlist, short timeouts). */
    webhooks?: WebhookRuntimeOptions
  } = {},
): Promise<AppContext & { close(): Promise<void>; beginShutdown(): void }> {
  const clock = options.clock ?? systemClock
  // A database handed in (tests) stays the caller's to close.
  const ownsDb = !options.db
  let db: Db
  if (options.db) {
    db = options.db
    if (options.migrate !== false) await migrateToLatest(db)
  } else {
    db = (await openMigratedDatabase(config, { migrate: options.migrate })).db
  }
  const blobs = createBlobStore({
    storageUrl: config.storageUrl,
    dataDir: config.dataDir,
    clock,
    publicUrl: config.publicUrl,
    uploadSecret: config.secretKey,
    s3: {
      endpoint: config.s3.endpoint,
      region: config.s3.region,
      forcePathStyle: config.s3.forcePathStyle,
      credentials:
        config.s3.accessKeyId && config.s3.secretAccessKey
          ? { accessKeyId: config.s3.accessKeyId, secretAccessKey: config.s3.secretAccessKey }
          : undefined,
    },
  })
  // This process's one registry; the queue series are read from the database on each scrape.
  const metrics = createPrometheusMetrics({ queueStats: () => readQueueStats(db, clock.now()) })
  const tenants = new TenantService(db.kysely, clock)
  const packages = new PackageService({ db: db.kysely, blobs, clock, config, metrics })
  const uploads = new UploadService({ db: db.kysely, blobs, clock, config, packages })
  const launches = new LaunchService({ db: db.kysely, clock, config })
  const sessions = new SessionService(db.kysely)
  const runtime = new RuntimeService({
    db: db.kysely,
    commits: createTransactionRunner(db),
    clock,
    config,
  })
  const hooks = options.webhooks ?? {}
  const webhookEgress = createHttpEgressClient({
    allowAddresses: [...config.egress.allowAddresses, ...(hooks.allowAddresses ?? [])],
    ca: hooks.ca,
    resolve: hooks.resolve,
  })
  const webhooks = createWebhookService({
    db,
    clock,
    secretKey: config.secretKey,
    egress: webhookEgress,
    secretOverlapSeconds: config.webhooks.secretOverlapSeconds,
    perEndpoint: config.webhooks.endpointConcurrency,
    concurrency: config.webhooks.concurrency,
    lanes: config.webhooks.senders,
    timeoutMs: hooks.timeoutMs,
    leaseMarginSeconds: hooks.leaseMarginSeconds,
    senderBudgetMs: hooks.senderBudgetMs,
    metrics,
  })
  const publishEgress = createHttpEgressClient({
    allowAddresses: config.egress.allowAddresses,
    ca: config.egress.caFile ? readFileSync(config.egress.caFile) : undefined,
    maxBodyBytes: config.publish.maxImageBytes,
    userAgent: 'Courseport/1 (+quick-publish)',
  })
  const quickPublish = new QuickPublishService({
    packages,
    launches,
    egress: publishEgress,
    clock,
    config,
    scratchDir: tmpdir(),
  })
  const conversions = new ConversionService({
    db: db.kysely,
    blobs,
    clock,
    queue: createQueue(db, { clock }),
    packages,
    renderer: createSlideRenderer({
      binary: config.conversions.officeBinary,
      sandbox: config.conversions.officeSandbox,
      timeoutSeconds: config.conversions.timeoutSeconds,
      concurrency: config.conversions.concurrency,
      searchPath: process.env.PATH,
    }),
    scratchDir: tmpdir(),
    metrics,
  })
  let shuttingDown = false
  return {
    config,
    db,
    blobs,
    clock,
    metrics,
    services: {
      tenants,
      packages,
      uploads,
      launches,
      sessions,
      runtime,
      webhooks,
      quickPublish,
      conversions,
      ...createDispatchServices({ db: db.kysely, clock, config, launches }),
    },
    lifecycle: { isShuttingDown: () => shuttingDown },
    beginShutdown() {
      shuttingDown = true
    },
    async close() {
      await blobs.close?.()
      await webhookEgress.close()
      await publishEgress.close()
      if (ownsDb) await db.close()
    },
  }
}
