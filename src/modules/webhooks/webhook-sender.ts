import type { HttpEgressClient } from '../../infra/http-egress/index.ts'
import { isHttpEgressError } from '../../infra/http-egress/index.ts'
import type { AttemptResult } from './delivery-policy.ts'

/** How much of a receiver's answer is kept with the attempt record. */
export const RESPONSE_EXCERPT_BYTES = 4096

export interface SendRequest {
  url: string
  headers: Record<string, string>
  body: string
  timeoutMs: number
  signal: AbortSignal
}

export interface SendResult {
  /** True when our own signal cancelled the request: the attempt does not count. */
  aborted: boolean
  result: AttemptResult
  statusCode: number | null
  latencyMs: number
  /** Why the attempt did not deliver; null on 2xx. */
  error: string | null
  excerpt: string | null
  truncated: boolean
}

function describeStatus(status: number, location: string | string[] | undefined): string | null {
  if (status >= 200 && status < 300) return null
  if (status >= 300 && status < 400) {
    const where = Array.isArray(location) ? location[0] : location
    return `HTTP ${status}: redirect${where ? ` to ${where}` : ''} not followed (redirects count as failed attempts)`
  }
  if (status === 404 || status === 410) return `HTTP ${status}: the receiver is gone; no retries`
  return `HTTP ${status}`
}

/**
 * One POST through the SSRF-safe egress client (HTTPS only, every address checked and pinned,
 * certificates verified, redirects never followed, a total time budget). Never throws: every
 * failure becomes an attempt result for the state table.
 */
export async function sendAttempt(egress: HttpEgressClient, req: SendRequest): Promise<SendResult> {
  const started = performance.now()
  const latency = () => Math.round(performance.now() - started)
  try {
    const res = await egress.request({
      url: req.url,
      method: 'POST',
      headers: req.headers,
      body: req.body,
      timeoutMs: req.timeoutMs,
      maxBodyBytes: RESPONSE_EXCERPT_BYTES,
      onOversize: 'truncate',
      signal: req.signal,
    })
    return {
      aborted: false,
      result: { kind: 'response', statusCode: res.status },
      statusCode: res.status,
      latencyMs: latency(),
      error: describeStatus(res.status, res.headers.location),
      excerpt: res.body.length > 0 ? res.body.toString('utf8') : null,
      truncated: res.truncated,
    }
  } catch (err) {
    const aborted = req.signal.aborted || (isHttpEgressError(err) && err.code === 'aborted')
    let message: string
    if (isHttpEgressError(err) && err.code === 'timeout') {
      message = `timeout: no complete answer within ${req.timeoutMs / 1000} s`
    } else if (isHttpEgressError(err)) {
      message = `${err.code}: ${err.message}`
    } else {
      message = err instanceof Error ? err.message : String(err)
    }
    return {
      aborted,
      result: { kind: 'error', message },
      statusCode: null,
      latencyMs: latency(),
      error: message,
      excerpt: null,
      truncated: false,
    }
  }
}
