/**
 * The dispatch state machine (docs/dispatch.md). Pure: no I/O.
 *
 * Stored lifecycle: active | paused | archived | deleted. The status users see adds `expired`:
 * an active or paused dispatch whose `expiresAt` has passed. Expiry is read from the clock, not
 * from a job, so a launch is refused the instant it passes; the expiry job only records the
 * `dispatch.expired` event (once per expiry).
 */
import type { DispatchLifecycle } from '../../infra/db/tables/dispatches.ts'

export type DispatchStatus = 'active' | 'paused' | 'expired' | 'archived' | 'deleted'

export type DispatchAction =
  | 'pause'
  | 'resume'
  | 'archive'
  | 'restore'
  | 'extend'
  | 'update'
  | 'delete'

interface TransitionRule {
  /** Statuses (as users see them) the action is allowed from. */
  from: readonly DispatchStatus[]
  /** The stored lifecycle afterwards; `keep` leaves it as it is. */
  to: DispatchLifecycle | 'keep'
  /** The audit event written in the same transaction. */
  event: string
}

/**
 * Every allowed transition. Anything not listed answers 409 `invalid_state`. `update` (PATCH) and
 * `extend` keep the lifecycle: extending an expired dispatch makes it active or paused again,
 * whichever it was when it expired.
 */
export const TRANSITIONS: Readonly<Record<DispatchAction, TransitionRule>> = {
  pause: { from: ['active'], to: 'paused', event: 'dispatch.paused' },
  resume: { from: ['paused'], to: 'active', event: 'dispatch.resumed' },
  archive: { from: ['active', 'paused', 'expired'], to: 'archived', event: 'dispatch.archived' },
  restore: { from: ['archived'], to: 'active', event: 'dispatch.restored' },
  extend: { from: ['active', 'paused', 'expired'], to: 'keep', event: 'dispatch.extended' },
  update: {
    from: ['active', 'paused', 'expired', 'archived'],
    to: 'keep',
    event: 'dispatch.updated',
  },
  delete: {
    from: ['active', 'paused', 'expired', 'archived'],
    to: 'deleted',
    event: 'dispatch.deleted',
  },
}

export function isExpired(expiresAt: string | null, now: Date): boolean {
  return expiresAt !== null && new Date(expiresAt).getTime() <= now.getTime()
}

/** The status users see: the stored lifecycle, or `expired` once an open dispatch's expiry passed. */
export function effectiveStatus(
  row: { status: DispatchLifecycle; expires_at: string | null },
  now: Date,
): DispatchStatus {
  if ((row.status === 'active' || row.status === 'paused') && isExpired(row.expires_at, now)) {
    return 'expired'
  }
  return row.status
}

export type TransitionResult =
  | { ok: true; to: DispatchLifecycle; event: string }
  | { ok: false; allowedFrom: readonly DispatchStatus[] }

export function transition(
  current: DispatchLifecycle,
  status: DispatchStatus,
  action: DispatchAction,
): TransitionResult {
  const rule = TRANSITIONS[action]
  if (!rule.from.includes(status)) return { ok: false, allowedFrom: rule.from }
  return { ok: true, to: rule.to === 'keep' ? current : rule.to, event: rule.event }
}

/** Why a launch is refused, in the order they are checked. */
export type RefusalReason =
  | 'deleted'
  | 'archived'
  | 'paused'
  | 'expired'
  | 'domain_not_allowed'
  | 'no_learner'
  | 'package_unavailable'
  | 'license_limit'
  | 'rate_limited'
  | 'wrapper_revoked'

/** The status-based refusal for a launch, or null when the status lets launches through. */
export function statusRefusal(status: DispatchStatus): RefusalReason | null {
  switch (status) {
    case 'active':
      return null
    case 'paused':
    case 'expired':
    case 'archived':
    case 'deleted':
      return status
  }
}
