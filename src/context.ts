import type { Config } from './config.ts'
import type { BlobStore } from './infra/blobs/blob-store.ts'
import type { Db } from './infra/db/database.ts'
import type { MetricsExporter } from './infra/metrics/index.ts'
import type { ConversionService } from './modules/conversions/conversion.service.ts'
import type { DispatchLaunchService, DispatchService } from './modules/dispatches/index.ts'
import type { PackageService } from './modules/packages/package.service.ts'
import type { UploadService } from './modules/packages/upload.service.ts'
import type { QuickPublishService } from './modules/publish/quick-publish.service.ts'
import type { RuntimeService } from './modules/runtime/runtime.service.ts'
import type { LaunchService } from './modules/sessions/launch.service.ts'
import type { SessionService } from './modules/sessions/session.service.ts'
import type { TenantService } from './modules/tenants/tenant.service.ts'
import type { WebhookService } from './modules/webhooks/index.ts'
import type { Clock } from './shared/clock.ts'

export interface Services {
  tenants: TenantService
  packages: PackageService
  uploads: UploadService
  launches: LaunchService
  sessions: SessionService
  runtime: RuntimeService
  webhooks: WebhookService
  quickPublish: QuickPublishService
  conversions: ConversionService
  dispatches: DispatchService
  dispatchLaunches: DispatchLaunchService
}

/** Everything a process holds, built once by an entry point and passed down explicitly. */
export interface AppContext {
  config: Config
  db: Db
  blobs: BlobStore
  clock: Clock
  /** This process's metrics (one registry per process; tests build several). */
  metrics: MetricsExporter
  services: Services
  lifecycle: { isShuttingDown(): boolean }
}
