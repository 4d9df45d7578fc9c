import { createHash } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Database } from '../../infra/db/schema.ts'
import type { Clock } from '../../shared/clock.ts'
import { countInWindow, peekWindow } from '../plugins/rate-limit.ts'

/**
 * Failed sign-ins are counted per account and per client address in fixed windows of the
 * database's `rate_limits` table (the API's rate limiter), so every process sees the same count.
 *
 * - `windowMs`: default 15 minutes.
 * - `perAccount`: failures allowed per e-mail per window; default 5.
 * - `perAddress`: failures allowed per client address per window; default 30.
 *
 * Past either, sign-in answers 429 with Retry-After until the window ends, whether or not the
 * password is right. Parallel attempts may pass the check together; each still costs a scrypt.
 */
export interface LoginThrottlePolicy {
  windowMs: number
  perAccount: number
  perAddress: number
}

export const DEFAULT_LOGIN_THROTTLE: LoginThrottlePolicy = Object.freeze({
  windowMs: 15 * 60_000,
  perAccount: 5,
  perAddress: 30,
})

export class LoginThrottle {
  readonly #db: Kysely<Database>
  readonly #clock: Clock
  readonly #policy: LoginThrottlePolicy
  constructor(db: Kysely<Database>, clock: Clock, policy: Partial<LoginThrottlePolicy> = {}) {
    this.#db = db
    this.#clock = clock
    this.#policy = { ...DEFAULT_LOGIN_THROTTLE, ...policy }
  }

  #keys(email: string, address: string) {
    const account = createHash('sha256').update(email.trim().toLowerCase()).digest('hex')
    return [
      [`login:account:${account}`, this.#policy.perAccount],
      [`login:address:${address}`, this.#policy.perAddress],
    ] as const
  }

  /** Seconds until sign-in may be tried again when either budget is spent, else null. */
  async waitSeconds(email: string, address: string): Promise<number | null> {
    const now = this.#clock.now().getTime()
    for (const [key, max] of this.#keys(email, address)) {
      const { count, ttl } = await peekWindow(this.#db, key, now, this.#policy.windowMs)
      if (count >= max) return Math.ceil(ttl / 1000)
    }
    return null
  }

  async recordFailure(email: string, address: string): Promise<void> {
    const now = this.#clock.now().getTime()
    for (const [key] of this.#keys(email, address))
      await countInWindow(this.#db, key, now, this.#policy.windowMs)
  }
}
