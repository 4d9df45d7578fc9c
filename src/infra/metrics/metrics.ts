import { isAppError } from '../../shared/app-error.ts'

/** How a timed piece of work ended: `refused` is an AppError the client caused (status < 500). */
export type WorkOutcome = 'ok' | 'refused' | 'error'

/**
 * A runtime commit's outcome: applied, a duplicate of one already applied (answered again, not
 * applied twice), `conflict` (a sequence gap or jump: 409), `refused` (another 4xx: a bad token,
 * a bad body) or `error` (5xx).
 */
export type CommitOutcome = 'applied' | 'duplicate' | 'conflict' | 'refused' | 'error'

/** One webhook attempt, classified by the spec's state table (delivery-policy.ts). */
export type WebhookAttemptOutcome = 'delivered' | 'failed' | 'dead_letter'

export interface HttpRequestSample {
  /** Which application answered: `api` (PUBLIC_URL) or `content` (CONTENT_URL). */
  origin: 'api' | 'content'
  /** The route's pattern (`/c/:token/*`), never the request's URL: tokens travel in URLs. */
  route: string
  method: string
  statusCode: number
  seconds: number
}

/**
 * What the code records; the exporter (prometheus-metrics.ts) decides how it is kept. Every
 * method is cheap and synchronous and never throws, so it can sit on any hot path. Domain code
 * receives this interface, never the exporter.
 */
export interface Metrics {
  httpRequest(sample: HttpRequestSample): void
  runtimeCommit(outcome: CommitOutcome): void
  webhookAttempt(outcome: WebhookAttemptOutcome, seconds: number): void
  /** Validating and storing one package zip (excluding the wait for an ingest slot). */
  packageIngest(outcome: WorkOutcome, seconds: number): void
  /** One conversion attempt: download, render, build and register the course. */
  conversion(outcome: WorkOutcome, seconds: number): void
}

/** Records nothing: the default where no exporter was wired (unit tests, scripts). */
export const noopMetrics: Metrics = {
  httpRequest() {},
  runtimeCommit() {},
  webhookAttempt() {},
  packageIngest() {},
  conversion() {},
}

export function workOutcomeOf(err: unknown): WorkOutcome {
  return isAppError(err) && err.status < 500 ? 'refused' : 'error'
}

/**
 * Runs `work` and records its duration and outcome with `record`; the result or the error passes
 * through unchanged. Durations are wall time (performance.now), never the injected Clock, which
 * tests stop.
 */
export async function timed<T>(
  record: (outcome: WorkOutcome, seconds: number) => void,
  work: () => Promise<T>,
): Promise<T> {
  const started = performance.now()
  try {
    const result = await work()
    record('ok', (performance.now() - started) / 1000)
    return result
  } catch (err) {
    record(workOutcomeOf(err), (performance.now() - started) / 1000)
    throw err
  }
}
