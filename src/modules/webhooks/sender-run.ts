import { setTimeout as sleep } from 'node:timers/promises'
import type { Db } from '../../infra/db/database.ts'
import type { WebhookEndpointsTable } from '../../infra/db/tables/webhooks.ts'
import type { Clock } from '../../shared/clock.ts'
import {
  type ClaimedDelivery,
  claimDueDeliveries,
} from './delivery-claim.cross-tenant.repository.ts'
import { type AttemptOutcome, recordOutcomes } from './delivery-outcome.cross-tenant.repository.ts'
import { endpointsByIds } from './webhook-jobs.cross-tenant.repository.ts'

export interface SenderRunOptions {
  /** Requests one run keeps in flight. */
  concurrency: number
  /** Deliveries in flight per endpoint, across every worker. */
  perEndpoint: number
  /** Lease of one claimed delivery: the timeout plus a margin. */
  leaseSeconds: number
  /** A run stops claiming after this long (then drains), so its job lease is never outrun. */
  budgetMs: number
  /** While requests are in flight, look for newly due work at least this often. */
  idlePollMs: number
  /** After a request finishes, wait this long for others before recording and refilling. */
  coalesceMs: number
}

export interface DispatchLogger {
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

export interface DispatchStats {
  attempts: number
  delivered: number
  failed: number
  deadLettered: number
  /** Whether the run stopped because its budget ran out (more work may be due). */
  budgetSpent: boolean
}

/** One attempt of one leased delivery; resolves null when no attempt was made. Never rejects. */
export type AttemptFn = (
  delivery: ClaimedDelivery,
  endpoint: WebhookEndpointsTable | undefined,
  signal: AbortSignal,
) => Promise<AttemptOutcome | null>

export interface SenderRunDeps {
  db: Db
  clock: Clock
  options: SenderRunOptions
  logger: DispatchLogger
  attempt: AttemptFn
}

/**
 * One sender run, as an object so its state (requests in flight, outcomes not yet recorded, the
 * counts) has an owner: record finished outcomes, claim as many due deliveries as there are free
 * slots and start them, wait for a slot or for new work, until nothing is in flight and nothing
 * was claimed; then drain. Used once.
 */
export class SenderRun {
  readonly #deps: SenderRunDeps
  readonly #signal: AbortSignal
  readonly #started = performance.now()
  readonly #inFlight = new Set<Promise<void>>()
  readonly #finished: AttemptOutcome[] = []
  readonly #stats: DispatchStats = {
    attempts: 0,
    delivered: 0,
    failed: 0,
    deadLettered: 0,
    budgetSpent: false,
  }

  constructor(deps: SenderRunDeps, signal: AbortSignal) {
    this.#deps = deps
    this.#signal = signal
  }

  async execute(): Promise<DispatchStats> {
    while (!this.#signal.aborted) {
      // Outcomes first: they free endpoint slots the claim can then fill.
      await this.#recordFinished()
      const claimed = await this.#claimAndStart()
      if (this.#inFlight.size === 0) {
        if (claimed === 0 && this.#finished.length === 0) break
        continue
      }
      await this.#waitForProgress()
    }
    await Promise.allSettled([...this.#inFlight])
    await this.#recordFinished()
    return this.#stats
  }

  /** Writes the finished outcomes in one batch and counts them. */
  async #recordFinished(): Promise<void> {
    if (this.#finished.length === 0) return
    const batch = this.#finished.splice(0)
    try {
      const written = await recordOutcomes(this.#deps.db, batch)
      for (const o of batch) {
        if (!written.has(o.delivery.id)) {
          this.#deps.logger.warn(
            { deliveryId: o.delivery.id },
            'webhook attempt finished after its lease was taken over; outcome ignored',
          )
        } else if (o.status === 'delivered') this.#stats.delivered++
        else if (o.status === 'failed') this.#stats.failed++
        else this.#stats.deadLettered++
      }
    } catch (err) {
      // The leases run out and another run retries; those attempts are marked interrupted.
      this.#deps.logger.error({ err, count: batch.length }, 'could not record webhook outcomes')
    }
  }

  /** Claims due deliveries for the free slots (within the budget) and starts them; the count. */
  async #claimAndStart(): Promise<number> {
    const { db, clock, options } = this.#deps
    const free = options.concurrency - this.#inFlight.size
    const withinBudget = performance.now() - this.#started < options.budgetMs
    if (!withinBudget) this.#stats.budgetSpent = true
    if (free <= 0 || !withinBudget) return 0
    const batch = await claimDueDeliveries(db, {
      now: clock.now(),
      limit: free,
      perEndpoint: options.perEndpoint,
      leaseSeconds: options.leaseSeconds,
    })
    if (batch.length === 0) return 0
    const ids = [...new Set(batch.map((d) => d.endpointId))]
    const endpoints = new Map((await endpointsByIds(db.kysely, ids)).map((r) => [r.id, r]))
    for (const delivery of batch) this.#start(delivery, endpoints.get(delivery.endpointId))
    return batch.length
  }

  #start(delivery: ClaimedDelivery, endpoint: WebhookEndpointsTable | undefined): void {
    const task: Promise<void> = this.#deps
      .attempt(delivery, endpoint, this.#signal)
      .then((outcome) => {
        if (outcome) {
          this.#stats.attempts++
          this.#finished.push(outcome)
        }
      })
      .finally(() => this.#inFlight.delete(task))
    this.#inFlight.add(task)
  }

  /**
   * Waits for a slot (or for newly due work), then gives simultaneous completions a moment to
   * land, so one commit records them and one claim refills them.
   */
  async #waitForProgress(): Promise<void> {
    const { idlePollMs, coalesceMs } = this.#deps.options
    const poll = new AbortController()
    await Promise.race([
      ...this.#inFlight,
      sleep(idlePollMs, undefined, { signal: poll.signal, ref: false }).catch(() => {}),
    ])
    poll.abort()
    if (coalesceMs > 0 && this.#finished.length < this.#inFlight.size) await sleep(coalesceMs)
  }
}
