import type { Db } from '../../infra/db/database.ts'
import type { Executor } from '../../infra/db/schema.ts'
import type { Queue } from '../../infra/queue/index.ts'
import type { Clock } from '../../shared/clock.ts'
import { anyClaimable, nextWakeAt } from './delivery-claim.cross-tenant.repository.ts'
import type { DeliveryPipeline, DispatchStats } from './delivery-pipeline.ts'
import { FANOUT_BATCH, fanOutBatch } from './webhook-fanout.ts'

/** The sender task; one job per lane, keyed `webhooks.deliver:<lane>`. */
export const WEBHOOK_DELIVER_TASK = 'webhooks.deliver'
/** The scheduled fan-out task (every EVENT_FANOUT_INTERVAL seconds). */
export const EVENT_FANOUT_TASK = 'events.fanout'
/** How soon a lane that found nothing to send looks again when work is due (another lane has it). */
const IDLE_LANE_RETRY_MS = 1000
/** Claimable work older than this has no sender on it: the fan-out's safety net wakes one. */
const STALE_WORK_MS = 10_000
/** Sender runs that can run at the same time; enough for two workers to share the sending. */
export const DEFAULT_SENDER_LANES = 2

export interface DeliverySchedulerDeps {
  db: Db
  clock: Clock
  queue: Queue
  pipeline: DeliveryPipeline
  /** Deliveries in flight per endpoint (for the wake-up checks; the claim enforces it). */
  perEndpoint: number
  lanes: number
  /** A fan-out run stops starting batches after this long (its job lease must outlive it). */
  fanoutBudgetMs: number
}

/**
 * Decides when webhook work runs: queues the sender lanes (`wake`, and each lane's next run after
 * `send`), and runs the fan-out of audit events into deliveries. The sending itself is the
 * {@link DeliveryPipeline}'s.
 */
export class DeliveryScheduler {
  readonly #deps: DeliverySchedulerDeps
  constructor(deps: DeliverySchedulerDeps) {
    this.#deps = deps
  }

  /**
   * Makes every sender lane due at `runAt` (default now). Pass the transaction that creates the
   * work, so the wake-up exists exactly when the work does.
   */
  async wake(executor: Executor, runAt?: Date): Promise<void> {
    for (let lane = 0; lane < this.#deps.lanes; lane++) {
      await this.#enqueueLane(executor, lane, runAt ?? this.#deps.clock.now())
    }
  }

  #enqueueLane(executor: Executor, lane: number, runAt: Date): Promise<string> {
    return this.#deps.queue.enqueue(executor, {
      task: WEBHOOK_DELIVER_TASK,
      payload: { lane },
      runAt,
      maxAttempts: 10,
      jobKey: `${WEBHOOK_DELIVER_TASK}:${lane}`,
    })
  }

  /**
   * Fans out pending audit events in batches until none is left or the budget is spent (then
   * another fan-out job is queued to go on at once). Also wakes the senders when a claimable
   * delivery has waited longer than a running sender would let it (it polls every second): that
   * recovers deliveries whose sender died, without stacking runs on a busy one.
   */
  async fanOut(batchSize = FANOUT_BATCH): Promise<{ events: number; deliveries: number }> {
    const { db, clock } = this.#deps
    const started = performance.now()
    const total = { events: 0, deliveries: 0 }
    for (;;) {
      const batch = await fanOutBatch(db, clock, (trx) => this.wake(trx), batchSize)
      total.events += batch.events
      total.deliveries += batch.deliveries
      if (batch.events < batchSize) break
      if (performance.now() - started > this.#deps.fanoutBudgetMs) {
        await this.#deps.queue.enqueue(db.kysely, {
          task: EVENT_FANOUT_TASK,
          payload: { continued: true },
          jobKey: `${EVENT_FANOUT_TASK}:continue`,
        })
        break
      }
    }
    const now = clock.now()
    const waiting = new Date(now.getTime() - STALE_WORK_MS)
    if (await anyClaimable(db.kysely, now, this.#deps.perEndpoint, waiting)) {
      await this.wake(db.kysely)
    }
    return total
  }

  /**
   * One sender run for `lane`, then its next run is queued: now if work is claimable, else at the
   * next retry or lease expiry. Checking again after queueing closes the race with a wake-up
   * committed meanwhile (which the queued run may have overwritten).
   */
  async send(lane: number, signal: AbortSignal): Promise<DispatchStats> {
    const stats = await this.#deps.pipeline.run(signal)
    if (signal.aborted) return stats
    const { db, clock, perEndpoint } = this.#deps
    const now = clock.now()
    // A run that found nothing to send while work was due lost the race to another run that is
    // sending it: it looks again in a second rather than spinning against that run.
    const soonest = new Date(now.getTime() + (stats.attempts === 0 ? IDLE_LANE_RETRY_MS : 0))
    const next = (await anyClaimable(db.kysely, now, perEndpoint))
      ? now
      : await nextWakeAt(db.kysely, now)
    if (!next) return stats
    const runAt = next > soonest ? next : soonest
    await this.#enqueueLane(db.kysely, lane, runAt)
    if (runAt > soonest && (await anyClaimable(db.kysely, clock.now(), perEndpoint))) {
      await this.#enqueueLane(db.kysely, lane, soonest)
    }
    return stats
  }
}
