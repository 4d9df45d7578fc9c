import { randomUUID } from 'node:crypto'
import cookie from '@fastify/cookie'
import multipart from '@fastify/multipart'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerOptions,
} from 'fastify'
import type { AppContext } from './context.ts'
import { cmi5ApiRoutes, cmi5ContentRoutes } from './http/cmi5/cmi5.routes.ts'
import { contentRoutes } from './http/content/content.routes.ts'
import { contentHomeRoute } from './http/content/content-home.page.ts'
import { customerRoutes } from './http/customer/customer.routes.ts'
import { dashboardPage } from './http/customer/dashboard.page.ts'
import { dispatchFrameRoutes } from './http/dispatch/index.ts'
import { lrsRoutes } from './http/lrs/lrs.routes.ts'
import { playerRoutes } from './http/player/index.ts'
import { apiKeyAuthHook } from './http/plugins/api-key-auth.ts'
import {
  clientErrorHandler,
  frameworkErrorHandler,
  registerErrorHandling,
} from './http/plugins/error-handler.ts'
import { registerIdempotency } from './http/plugins/idempotency.ts'
import { logSerializers } from './http/plugins/log-redaction.ts'
import { registerOpenApi } from './http/plugins/openapi.ts'
import { registerRateLimit } from './http/plugins/rate-limit.ts'
import {
  registerApiSecurityHeaders,
  registerContentSecurityDefaults,
} from './http/plugins/security-headers.ts'
import { registerTenantGuard } from './http/plugins/tenant-guard.ts'
import { registerTextGuard } from './http/plugins/text-guard.ts'
import { requestValidation } from './http/plugins/validation.ts'
import { conversionRoutes } from './http/routes/conversions/index.ts'
import { dispatchRoutes } from './http/routes/dispatches/index.ts'
import { docsRoutes } from './http/routes/docs/index.ts'
import { healthRoutes } from './http/routes/health/index.ts'
import { addRetryAfterTo503 } from './http/routes/health/retry-after.ts'
import { metricsRoutes, registerRequestMetrics } from './http/routes/metrics/index.ts'
import { packageRoutes } from './http/routes/packages/index.ts'
import { quickPublishRoutes } from './http/routes/quick-publish/index.ts'
import { packageDownloadRoutes } from './http/routes/quick-publish/package-download.ts'
import { sessionRoutes } from './http/routes/sessions/index.ts'
import { uploadTargetRoutes } from './http/routes/uploads/index.ts'
import { webhookRoutes } from './http/routes/webhooks/index.ts'
import { xapiRoutes } from './http/routes/xapi/index.ts'
import { runtimeRoutes } from './http/runtime/runtime.routes.ts'
import { ErrorBody } from './http/schemas/common.ts'

export type App = FastifyInstance

export interface BuildOptions {
  /** Share one logger between the two origins; default: a new pino at LOG_LEVEL. */
  loggerInstance?: FastifyBaseLogger
  /**
   * The content app answers runtime commits before Fastify (runtime/commit-fast-path.ts);
   * default true. False sends every commit through Fastify (tests compare both answers).
   */
  runtimeFastPath?: boolean
}

function baseOptions(ctx: AppContext, options: BuildOptions): FastifyServerOptions {
  return {
    // Tokens in URLs are redacted from every log line (log-redaction.ts).
    ...(options.loggerInstance
      ? { loggerInstance: options.loggerInstance.child({}, { serializers: logSerializers }) }
      : { logger: { level: ctx.config.logLevel, serializers: logSerializers } }),
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    trustProxy: ctx.config.trustProxy,
    // Errors before routing and Node's parser errors leave with the one error body too.
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // Signed upload tokens travel in the path.
    routerOptions: { maxParamLength: 2048 },
    // Bodies are validated without type coercion, query strings with it (validation.ts).
    schemaController: requestValidation(),
  }
}

/**
 * The API + dashboard application (PUBLIC_URL). It never listens: entry points call `listen`,
 * tests call `inject`.
 */
export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<App> {
  const app = Fastify(baseOptions(ctx, options)).withTypeProvider<TypeBoxTypeProvider>()
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })
  registerRequestMetrics(app, ctx.metrics, 'api')
  app.decorateRequest('auth', null)
  registerErrorHandling(app)
  registerApiSecurityHeaders(app)
  registerTextGuard(app)
  app.addSchema(ErrorBody)
  await registerOpenApi(app, ctx.config.publicUrl)
  await app.register(cookie)
  await app.register(multipart, {
    limits: { fileSize: ctx.config.upload.maxBytes, files: 1, fields: 20, parts: 25 },
  })

  addRetryAfterTo503(app)
  await app.register(healthRoutes, {
    db: ctx.db,
    blobs: ctx.blobs,
    isShuttingDown: ctx.lifecycle.isShuttingDown,
  })
  await app.register(docsRoutes)
  // Only with METRICS_TOKEN: this origin is public (docs/operations.md, "Metrics").
  await app.register(metricsRoutes, {
    metrics: ctx.metrics,
    token: ctx.config.metrics.token,
    tokenRequired: true,
  })
  await app.register(uploadTargetRoutes, { ctx })
  await app.register(packageDownloadRoutes, { ctx })
  // The LRS authenticates with its own Basic credentials, outside the /api/v1 key scope.
  await app.register(lrsRoutes, { ctx, prefix: '/xapi' })
  // The dashboard: its page, and its API authenticated by session cookie, never by API key.
  await app.register(dashboardPage)
  await app.register(customerRoutes, { ctx, prefix: '/api/customer' })

  await app.register(
    async (api) => {
      api.addHook('onRequest', apiKeyAuthHook(ctx.services.tenants))
      // A tenant named in a body must be the key's: one rule for every endpoint (tenant-guard.ts).
      registerTenantGuard(api)
      await registerRateLimit(api, {
        db: ctx.db.kysely,
        clock: ctx.clock,
        perMinute: ctx.config.rateLimitPerMinute,
      })
      registerIdempotency(api, { db: ctx.db.kysely, clock: ctx.clock })
      await api.register(packageRoutes, { ctx })
      await api.register(sessionRoutes, { ctx })
      await api.register(webhookRoutes, { ctx })
      await api.register(dispatchRoutes, { ctx })
      await api.register(quickPublishRoutes, { ctx })
      await api.register(conversionRoutes, { ctx })
      await api.register(xapiRoutes, { ctx })
      await api.register(cmi5ApiRoutes, { ctx })
    },
    { prefix: '/api/v1' },
  )

  return app
}

/**
 * The content origin (CONTENT_URL): player, package files and runtime endpoints. Kept a separate
 * application so uploaded HTML can never run on the API's origin (DESIGN §2).
 */
export async function buildContentApp(ctx: AppContext, options: BuildOptions = {}): Promise<App> {
  const app = Fastify(baseOptions(ctx, options))
  registerRequestMetrics(app, ctx.metrics, 'content')
  registerErrorHandling(app)
  registerContentSecurityDefaults(app)
  addRetryAfterTo503(app)
  await app.register(healthRoutes, {
    db: ctx.db,
    blobs: ctx.blobs,
    isShuttingDown: ctx.lifecycle.isShuttingDown,
  })
  await app.register(playerRoutes, { origins: { config: ctx.config, clock: ctx.clock } })
  await app.register(contentRoutes, { ctx })
  await app.register(runtimeRoutes, { ctx, fastPath: options.runtimeFastPath !== false })
  await app.register(dispatchFrameRoutes, { ctx })
  await app.register(cmi5ContentRoutes, { ctx })
  contentHomeRoute(app, ctx.config)
  return app
}
