import { randomUUID } from 'node:crypto'
import cookie from '@fastify/cookie'
import multipart from '@fastify/multipart'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyServerOptions,
} from 'fastify'
import type { AppContext } from './context.ts'
import { contentRoutes } from './http/content/content.routes.ts'
import { dispatchFrameRoutes } from './http/dispatch/index.ts'
import { lrsRoutes } from './http/lrs/lrs.routes.ts'
import { playerRoutes } from './http/player/index.ts'
import { apiKeyAuthHook } from './http/plugins/api-key-auth.ts'
import { registerErrorHandling } from './http/plugins/error-handler.ts'
import { registerIdempotency } from './http/plugins/idempotency.ts'
import { registerOpenApi } from './http/plugins/openapi.ts'
import { registerRateLimit } from './http/plugins/rate-limit.ts'
import { conversionRoutes } from './http/routes/conversions/index.ts'
import { dispatchRoutes } from './http/routes/dispatches/index.ts'
import { docsRoutes } from './http/routes/docs/index.ts'
import { healthRoutes } from './http/routes/health/index.ts'
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
}

function baseOptions(ctx: AppContext, options: BuildOptions): FastifyServerOptions {
  return {
    ...(options.loggerInstance
      ? { loggerInstance: options.loggerInstance }
      : { logger: { level: ctx.config.logLevel } }),
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    trustProxy: ctx.config.trustProxy,
    // Errors raised before routing (a malformed percent-escape, an over-long path) get the same
    // error body as everything else, and never echo the URL, which may carry a token.
    frameworkErrors: (error, _request, reply: FastifyReply) => {
      const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 400
      void reply
        .code(status)
        .send({ error: { code: 'invalid_request', message: 'Malformed request URL' } })
    },
    // Signed upload tokens travel in the path.
    routerOptions: { maxParamLength: 2048 },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', strictTypes: false } },
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
  app.decorateRequest('auth', null)
  registerErrorHandling(app)
  app.addSchema(ErrorBody)
  await registerOpenApi(app, ctx.config.publicUrl)
  await app.register(cookie)
  await app.register(multipart, {
    limits: { fileSize: ctx.config.upload.maxBytes, files: 1, fields: 20, parts: 25 },
  })

  await app.register(healthRoutes, { db: ctx.db, isShuttingDown: ctx.lifecycle.isShuttingDown })
  await app.register(docsRoutes)
  await app.register(uploadTargetRoutes, { ctx })
  await app.register(packageDownloadRoutes, { ctx })
  // The LRS authenticates with its own Basic credentials, outside the /api/v1 key scope.
  await app.register(lrsRoutes, { ctx, prefix: '/xapi' })

  await app.register(
    async (api) => {
      api.addHook('onRequest', apiKeyAuthHook(ctx.services.tenants))
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
  registerErrorHandling(app)
  await app.register(healthRoutes, { db: ctx.db, isShuttingDown: ctx.lifecycle.isShuttingDown })
  await app.register(playerRoutes)
  await app.register(contentRoutes, { ctx })
  await app.register(runtimeRoutes, { ctx })
  await app.register(dispatchFrameRoutes, { ctx })
  return app
}
