/**
 * The player's calls to the runtime endpoints of the content origin (docs/runtime-protocol.md).
 * Same origin, so paths are relative and no credentials mode is needed; every call after `start`
 * carries the runtime token, never a cookie.
 */
import type { Delta } from '../../modules/scorm/data-model/index.ts'
import type { SendOutcome } from './outbox.ts'
import type {
  CommitBody,
  DeliveryResponse,
  NavigationAnswer,
  NavigationBody,
  RefusedCall,
  SessionSummary,
  StartResponse,
} from './protocol.types.ts'

export type FetchFn = (input: string, init?: RequestInit) => Promise<Response>

/** A failed call: `status` 0 for a network failure. `retryable` for network, 408, 429 and 5xx. */
export class RuntimeCallError extends Error {
  readonly status: number
  readonly code: string
  readonly retryable: boolean
  /** The error's `details` (e.g. `{ exception }` of a refused navigation request). */
  readonly details: unknown
  constructor(status: number, code: string, message: string, details?: unknown) {
    super(message)
    this.name = 'RuntimeCallError'
    this.status = status
    this.code = code
    this.retryable = isRetryable(status)
    this.details = details
  }
}

export interface RuntimeClientOptions {
  readonly sessionId: string
  /** Default: the page's fetch. */
  readonly fetch?: FetchFn
  /** Origin-relative prefix of the endpoints. Default ''. */
  readonly base?: string
  /** Abort a call after this long. Default 20000 ms. */
  readonly timeoutMs?: number
}

export interface RuntimeClient {
  start(launchToken: string): Promise<StartResponse>
  delivery(runtimeToken: string, itemId: string): Promise<DeliveryResponse>
  /**
   * A SCORM 2004 navigation request; the sequencer on the server decides. A refusal throws a
   * RuntimeCallError with status 409 and code `navigation_refused` (`details.exception`).
   */
  navigate(runtimeToken: string, body: NavigationBody): Promise<NavigationAnswer>
  commit(
    runtimeToken: string,
    deliveryId: string,
    delta: Delta,
    refused?: readonly RefusedCall[],
  ): Promise<SendOutcome>
  /** Where beacons go; the body must carry the token (`commitBeaconBody`). */
  readonly commitUrl: string
}

export function createRuntimeClient(options: RuntimeClientOptions): RuntimeClient {
  const doFetch: FetchFn = options.fetch ?? ((input, init) => fetch(input, init))
  const root = `${options.base ?? ''}/runtime/sessions/${encodeURIComponent(options.sessionId)}`
  const timeoutMs = options.timeoutMs ?? 20_000

  async function call(path: string, body: unknown, token?: string): Promise<Response> {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (token) headers.authorization = `Bearer ${token}`
    try {
      return await doFetch(root + path, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        cache: 'no-store',
        ...timeoutSignal(timeoutMs),
      })
    } catch (err) {
      throw new RuntimeCallError(0, 'network_error', errorMessage(err))
    }
  }

  async function json<T>(path: string, body: unknown, token?: string): Promise<T> {
    const response = await call(path, body, token)
    const parsed = await readJson(response)
    if (!response.ok) {
      const { code, message, details } = errorOf(parsed)
      const text = message || `HTTP ${response.status}`
      throw new RuntimeCallError(response.status, code, text, details)
    }
    return parsed as T
  }

  return {
    commitUrl: `${root}/commits`,
    start: (launchToken) => json<StartResponse>('/start', { token: launchToken }),
    delivery: (runtimeToken, itemId) =>
      json<DeliveryResponse>('/deliveries', { item_id: itemId }, runtimeToken),
    navigate: (runtimeToken, body) => json<NavigationAnswer>('/navigation', body, runtimeToken),
    async commit(runtimeToken, deliveryId, delta, refused) {
      const body: CommitBody = {
        delivery_id: deliveryId,
        delta,
        ...(refused?.length && { refused }),
      }
      let response: Response
      try {
        response = await call('/commits', body, runtimeToken)
      } catch (err) {
        return { kind: 'retry', reason: errorMessage(err) }
      }
      return commitOutcome(response, delta.seq)
    },
  }
}

/** Maps the server's answer to a commit onto what the outbox does next. */
export async function commitOutcome(response: Response, sentSeq: number): Promise<SendOutcome> {
  const body = await readJson(response)
  if (response.ok) {
    const lastSeq = numberField(body, 'last_seq')
    const session = sessionSummary(field(body, 'session'))
    return { kind: 'acked', lastSeq: lastSeq ?? sentSeq, ...(session && { session }) }
  }
  const { code, details } = errorOf(body)
  // Two commits of one launch raced on the server (two tabs, a beacon and a fetch): try again.
  if (response.status === 409 && code === 'conflict') {
    return { kind: 'retry', reason: 'conflict' }
  }
  // `sequence_gap` (commits missing) and `sequence_jump` (a seq too far past the last applied
  // one) both name what the server holds: resend from there.
  const lastSeq = numberField(details, 'last_seq') ?? numberField(body, 'last_seq')
  if (response.status === 409 && lastSeq !== undefined) {
    if (code === 'sequence_gap' || code === 'sequence_jump') return { kind: 'gap', lastSeq }
  }
  if (isRetryable(response.status)) {
    const retryAfter = Number(response.headers.get('retry-after'))
    return {
      kind: 'retry',
      reason: `HTTP ${response.status}`,
      ...(retryAfter > 0 ? { afterMs: retryAfter * 1000 } : {}),
    }
  }
  return { kind: 'rejected', status: response.status, code: code || `http_${response.status}` }
}

/** The body for `navigator.sendBeacon`, which cannot set headers: the token travels inside. */
export function commitBeaconBody(
  runtimeToken: string,
  deliveryId: string,
  delta: Delta,
  refused?: readonly RefusedCall[],
): string {
  const body: CommitBody = {
    token: runtimeToken,
    delivery_id: deliveryId,
    delta,
    ...(refused?.length && { refused }),
  }
  return JSON.stringify(body)
}

function sessionSummary(value: unknown): SessionSummary | undefined {
  const completion = field(value, 'completion_status')
  const success = field(value, 'success_status')
  if (typeof completion !== 'string') return undefined
  return {
    completion_status: completion,
    ...(typeof success === 'string' && { success_status: success }),
  }
}

/** AbortSignal.timeout is missing before Safari 16; without it the browser's own timeout applies. */
function timeoutSignal(ms: number): { signal?: AbortSignal } {
  return typeof AbortSignal.timeout === 'function' ? { signal: AbortSignal.timeout(ms) } : {}
}

function isRetryable(status: number): boolean {
  return status === 0 || status === 408 || status === 429 || status >= 500
}

async function readJson(response: Response): Promise<unknown> {
  try {
    const text = await response.text()
    return text ? JSON.parse(text) : undefined
  } catch {
    return undefined
  }
}

function errorOf(body: unknown): { code: string; message: string; details: unknown } {
  const error = field(body, 'error')
  const code = field(error, 'code')
  const message = field(error, 'message')
  return {
    code: typeof code === 'string' ? code : '',
    message: typeof message === 'string' ? message : '',
    details: field(error, 'details'),
  }
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)[name]
    : undefined
}

function numberField(value: unknown, name: string): number | undefined {
  const v = field(value, name)
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
