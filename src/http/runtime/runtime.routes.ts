import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AppContext } from '../../context.ts'
import type { CommitOutcome, Metrics } from '../../infra/metrics/index.ts'
import { parseNavigationInput } from '../../modules/runtime/navigation-input.ts'
import { AppError, isAppError } from '../../shared/app-error.ts'

function bearer(request: FastifyRequest, body: unknown): string | undefined {
  const header = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1]
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

/**
 * The player's endpoints on the content origin (docs/runtime-protocol.md). Signed tokens, not
 * cookies, authorise them; `navigator.sendBeacon` posts `text/plain`, parsed as JSON here.
 */
export async function runtimeRoutes(
  app: FastifyInstance,
  { ctx }: { ctx: AppContext },
): Promise<void> {
  const { runtime } = ctx.services
  app.addContentTypeParser(
    'text/plain',
    { parseAs: 'string', bodyLimit: 2 * 1024 * 1024 },
    (_req, body, done) => {
      try {
        done(null, JSON.parse(body as string))
      } catch {
        done(new AppError('invalid_request', 'The body is not JSON'), undefined)
      }
    },
  )
  const options = { bodyLimit: 2 * 1024 * 1024 }

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
        bearer(request, body),
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
        bearer(request, body),
        parseNavigationInput(body),
        request.host,
      )
    },
  )

  app.post<{ Params: { sessionId: string } }>(
    '/runtime/sessions/:sessionId/commits',
    options,
    async (request) =>
      counted(ctx.metrics, async () => {
        const body = objectBody(request.body)
        return runtime.commit(request.params.sessionId, bearer(request, body), body, request.host)
      }),
  )
}
