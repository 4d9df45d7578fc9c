import type { Config } from '../config.ts'
import type { AppContext } from '../context.ts'
import { createBlobStore } from '../infra/blobs/create-blob-store.ts'
import { type Db, migrateToLatest, openDatabase } from '../infra/db/database.ts'
import { PackageService } from '../modules/packages/package.service.ts'
import { UploadService } from '../modules/packages/upload.service.ts'
import { LaunchService } from '../modules/sessions/launch.service.ts'
import { RuntimeService } from '../modules/sessions/runtime.service.ts'
import { SessionService } from '../modules/sessions/session.service.ts'
import { TenantService } from '../modules/tenants/tenant.service.ts'
import { type Clock, systemClock } from '../shared/clock.ts'

/**
 * Opens the database (migrating it unless told not to) and the blob store, and wires the
 * services. The caller owns the result and must `close` it.
 */
export async function createContext(
  config: Config,
  options: { clock?: Clock; migrate?: boolean; db?: Db } = {},
): Promise<AppContext & { close(): Promise<void>; beginShutdown(): void }> {
  const clock = options.clock ?? systemClock
  // A database handed in (tests) stays the caller's to close.
  const ownsDb = !options.db
  const db = options.db ?? openDatabase(config.databaseUrl)
  if (options.migrate !== false) await migrateToLatest(db)
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
  const tenants = new TenantService(db.kysely, clock)
  const packages = new PackageService({ db: db.kysely, blobs, clock, config })
  const uploads = new UploadService({ db: db.kysely, blobs, clock, config, packages })
  const launches = new LaunchService({ db: db.kysely, clock, config })
  const sessions = new SessionService(db.kysely)
  const runtime = new RuntimeService({ db: db.kysely, clock, config })
  let shuttingDown = false
  return {
    config,
    db,
    blobs,
    clock,
    services: { tenants, packages, uploads, launches, sessions, runtime },
    lifecycle: { isShuttingDown: () => shuttingDown },
    beginShutdown() {
      shuttingDown = true
    },
    async close() {
      await blobs.close?.()
      if (ownsDb) await db.close()
    },
  }
}
