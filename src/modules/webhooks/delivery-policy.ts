import type { DeliveryStatus } from '../../infra/db/tables/webhooks.ts'

/** Attempts per delivery cycle (spec: 5; a manual re-queue starts a new cycle). */
export const MAX_ATTEMPTS = 5

/** Wait before attempt n + 2 after attempt n + 1 failed: 60 s, 5 min, 15 min, 60 min. */
export const RETRY_DELAYS_SECONDS: readonly number[] = [60, 300, 900, 3600]

/** The spec's receiver budget: an answer later than this is a failed attempt. */
export const DELIVERY_TIMEOUT_MS = 30_000

/** What one attempt produced, before the state table is applied. */
export type AttemptResult =
  | { kind: 'response'; statusCode: number }
  | { kind: 'error'; message: string }

export interface Transition {
  status: Exclude<DeliveryStatus, 'queued'>
  /** For `failed`: when the next attempt is due. */
  nextAttemptAt: Date | null
  outcome: 'delivered' | 'failed' | 'dead_letter'
}

/**
 * The spec's delivery state table for attempt `attempt` (1-based within the cycle) finishing at
 * `now`: 2xx → delivered; 404/410 → dead_letter at once; anything else (non-2xx, a redirect —
 * never followed —, a timeout, a network or TLS error, a refused address) → failed with the next
 * attempt after the backoff for that attempt number, or dead_letter when it was the 5th.
 */
export function applyAttempt(attempt: number, result: AttemptResult, now: Date): Transition {
  if (result.kind === 'response') {
    const code = result.statusCode
    if (code >= 200 && code < 300) {
      return { status: 'delivered', nextAttemptAt: null, outcome: 'delivered' }
    }
    if (code === 404 || code === 410) {
      return { status: 'dead_letter', nextAttemptAt: null, outcome: 'dead_letter' }
    }
  }
  if (attempt >= MAX_ATTEMPTS) {
    return { status: 'dead_letter', nextAttemptAt: null, outcome: 'dead_letter' }
  }
  const delay = RETRY_DELAYS_SECONDS[attempt - 1] ?? RETRY_DELAYS_SECONDS.at(-1) ?? 3600
  return {
    status: 'failed',
    nextAttemptAt: new Date(now.getTime() + delay * 1000),
    outcome: 'failed',
  }
}

export interface TimingInput {
  /** Default: DELIVERY_TIMEOUT_MS (30 s). */
  timeoutMs?: number
  /** Default: 30 s. */
  leaseMarginSeconds?: number
  /** Default: 30 s. */
  senderBudgetMs?: number
}

export interface WebhookTiming {
  timeoutMs: number
  /** A claimed delivery's lease: one full attempt plus the margin (default 60 s). */
  deliveryLeaseSeconds: number
  /** A sender run stops claiming after this long (default 30 s). */
  senderBudgetMs: number
  /**
   * The sender job's lease: its budget, then one last full attempt, plus the margin (default
   * 90 s), so the job is never taken over while its last requests may still answer.
   */
  senderLeaseSeconds: number
  /** The fan-out job's budget (60 s) plus room for its last batch (default 300 s). */
  fanoutLeaseSeconds: number
  fanoutBudgetMs: number
}

/** Every lease outlives the step it covers: the spec's 30 s receiver budget plus a margin. */
export function webhookTiming(input: TimingInput = {}): WebhookTiming {
  const timeoutMs = input.timeoutMs ?? DELIVERY_TIMEOUT_MS
  const margin = input.leaseMarginSeconds ?? 30
  const senderBudgetMs = input.senderBudgetMs ?? 30_000
  const fanoutBudgetMs = 60_000
  return {
    timeoutMs,
    deliveryLeaseSeconds: Math.ceil(timeoutMs / 1000) + margin,
    senderBudgetMs,
    senderLeaseSeconds: Math.ceil((senderBudgetMs + timeoutMs) / 1000) + margin,
    fanoutLeaseSeconds: Math.ceil(fanoutBudgetMs / 1000) + 240,
    fanoutBudgetMs,
  }
}
