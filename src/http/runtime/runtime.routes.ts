import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AppContext } from '../../context.ts'
import type { CommitOutcome, Metrics } from '../../infra/metrics/index.ts'
import { parseNavigationInput } from '../../modules/runtime/navigation-input.ts'
import { AppError, isAppError } from '../../shared/app-error.ts'
import { installFastPath } from '../fast-path.ts'
import { type BodyParse, CommitFastPath } from './commit-fast-path.ts'

/** The runtime token: `Authorization: Bearer …`, else the body's `token` (sendBeacon). */
function bearer(authorization: string | undefined, body: unknown): string | undefined {
  const header = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1]
  if (header) return header
  const token = (body as { token?: unknown } | undefined)?.token
  return typeof token === 'string' ? token : undefined
}

function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null) {
    throw new AppError('invalid_request', 'Send a JSON object')
  }
  return body as Record<string, unknown>
}

function commitOutcomeOf(err: unknown): CommitOutcome {
  if (!isAppError(err) || err.status >= 500) return 'error'
  return err.status === 409 ? 'conflict' : 'refused'
}

/** Counts a commit by its outcome (an answer with `applied: false` is a duplicate). */
async function counted<T>(metrics: Metrics, commit: () => Promise<T>): Promise<T> {
  try {
    const answer = await commit()
    const applied = (answer as { applied?: unknown } | null)?.applied !== false
    metrics.runtimeCommit(applied ? 'applied' : 'duplicate')
    return answer
  } catch (err) {
    metrics.runtimeCommit(commitOutcomeOf(err))
    throw err
  }
}

/** A `text/plain` body (what `navigator.sendBeacon` sends) read as JSON. */
export function parseBeaconBody(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw new AppError('invalid_request', 'The body is not JSON')
  }
}

/**
 * Commits log at `warn` whatever LOG_LEVEL says, like content files: every learner commits every
 * few seconds, so two request lines each at `info` would drown the log (and cost more than the
 * commit). Failures are still logged; `courseport_runtime_commits_total` counts every outcome.
 */
export const COMMIT_LOG_LEVEL = 'warn'

/** The runtime routes' body limit (2 MiB), for both body parsers. */
export const RUNTIME_BODY_LIMIT = 2 * 1024 * 1024

/**
 * What `POST /runtime/sessions/:sessionId/commits` answers, for the route and for its fast path
 * (commit-fast-path.ts): one implementation, so both answer and count alike.
 */
export function commitAnswer(
  ctx: AppContext,
  sessionId: string,
  authorization: string | undefined,
  body: unknown,
  host: string,
): Promise<unknown> {
  return counted(ctx.metrics, async () => {
    const object = objectBody(body)
    return ctx.services.runtime.commit(sessionId, bearer(authorization, object), object, host)
  })
}

/**
 * The player's endpoints on the content origin (docs/runtime-protocol.md). Signed tokens, not
 * cookies, authorise them; `navigator.sendBeacon` posts `text/plain`, parsed as JSON here.
 */
export async function runtimeRoutes(
  app: FastifyInstance,
  { ctx, fastPath = true }: { ctx: AppContext; fastPath?: boolean },
): Promise<void> {
  const { runtime } = ctx.services
  if (fastPath) installCommitFastPath(app, ctx)
  app.addContentTypeParser(
    'text/plain',
    { parseAs: 'string', bodyLimit: RUNTIME_BODY_LIMIT },
    (_req, body, done) => {
      try {
        done(null, parseBeaconBody(body as string))
      } catch (err) {
        done(err as AppError, undefined)
      }
    },
  )
  const options = { bodyLimit: RUNTIME_BODY_LIMIT }

  app.post<{ Params: { sessionId: string } }>(
    '/runtime/sessions/:sessionId/start',
    options,
    async (request) => {
      const body = objectBody(request.body)
      return runtime.start(
        request.params.sessionId,
        typeof body.token === 'string' ? body.token : undefined,
        request.host,
      )
    },
  )

  app.post<{ Params: { sessionId: string } }>(
    '/runtime/sessions/:sessionId/deliveries',
    options,
    async (request) => {
      const body = objectBody(request.body)
      if (typeof body.item_id !== 'string')
        throw new AppError('invalid_request', 'item_id is required')
      return runtime.createDelivery(
        request.params.sessionId,
        bearer(request.headers.authorization, body),
        body.item_id,
        request.host,
      )
    },
  )

  app.post<{ Params: { sessionId: string } }>(
    '/runtime/sessions/:sessionId/navigation',
    options,
    async (request) => {
      const body = objectBody(request.body)
      return runtime.navigate(
        request.params.sessionId,
        bearer(request.headers.authorization, body),
        parseNavigationInput(body),
        request.host,
      )
    },
  )

  app.post<{ Params: { sessionId: string } }>(
    '/runtime/sessions/:sessionId/commits',
    { ...options, logLevel: COMMIT_LOG_LEVEL },
    async (request) =>
      commitAnswer(
        ctx,
        request.params.sessionId,
        request.headers.authorization,
        request.body,
        request.host,
      ),
  )
}

/** Fastify's JSON body parser, with the app's poisoning options, as a function that throws. */
function fastifyJsonParse(app: FastifyInstance): BodyParse {
  const { onProtoPoisoning = 'error', onConstructorPoisoning = 'error' } = app.initialConfig
  const parser = app.getDefaultJsonParser(onProtoPoisoning, onConstructorPoisoning)
  return (text) => {
    let parsed: { error: Error | null; body: unknown } | undefined
    void parser({} as FastifyRequest, text, (error, body) => {
      parsed = { error, body }
    })
    // Fastify's default parser answers synchronously.
    if (!parsed) throw new Error('the JSON parser did not answer synchronously')
    if (parsed.error) throw parsed.error
    return parsed.body
  }
}

/** Commits in front of Fastify, on this app's server (commit-fast-path.ts). */
function installCommitFastPath(app: FastifyInstance, ctx: AppContext): void {
  const fast = new CommitFastPath({
    commit: (sessionId, authorization, body, host) =>
      commitAnswer(ctx, sessionId, authorization, body, host),
    parseJson: fastifyJsonParse(app),
    parseText: parseBeaconBody,
    bodyLimit: RUNTIME_BODY_LIMIT,
    metrics: ctx.metrics,
    log: app.log,
  })
  installFastPath(app.server, fast)
  app.addHook('preClose', (done) => {
    fast.close()
    done()
  })
}
