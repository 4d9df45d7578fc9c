import type { Db } from '../../infra/db/database.ts'
import { decodeCursor, encodeCursor } from '../../infra/db/keyset.ts'
import type { Executor } from '../../infra/db/schema.ts'
import type { DeliveryStatus } from '../../infra/db/tables/webhooks.ts'
import type { Queue } from '../../infra/queue/index.ts'
import { AppError } from '../../shared/app-error.ts'
import { type Clock, isoNow } from '../../shared/clock.ts'
import { newId } from '../../shared/ids.ts'
import { recordAuditEvent } from '../events/audit-event.repository.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { anyClaimable, nextWakeAt } from './delivery-claim.repository.ts'
import { type DeliveryView, toDeliveryView } from './webhook.mapper.ts'
import * as repo from './webhook-delivery.repository.ts'
import type { DispatchStats, WebhookDispatcher } from './webhook-dispatcher.ts'
import { findEndpoint } from './webhook-endpoint.repository.ts'
import { buildEnvelope } from './webhook-envelope.ts'
import { TEST_EVENT_TYPE } from './webhook-events.ts'
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

export interface DeliveryDeskDeps {
  db: Db
  clock: Clock
  queue: Queue
  dispatcher: WebhookDispatcher
  /** Deliveries in flight per endpoint (for the wake-up checks; the claim enforces it). */
  perEndpoint: number
  lanes: number
  /** A fan-out run stops starting batches after this long (its job lease must outlive it). */
  fanoutBudgetMs: number
}

/**
 * The delivery side: fan-out of audit events into deliveries, the sender runs, and the API over
 * deliveries (history, re-queue of dead letters, test events).
 */
export class WebhookDeliveryDesk {
  readonly #deps: DeliveryDeskDeps
  constructor(deps: DeliveryDeskDeps) {
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
    const stats = await this.#deps.dispatcher.run(signal)
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

  async list(
    scope: TenantScope,
    webhookId: string,
    query: { limit?: number; cursor?: string; status?: DeliveryStatus },
  ): Promise<{ deliveries: DeliveryView[]; next_cursor: string | null }> {
    const db = this.#deps.db.kysely
    if (!(await findEndpoint(db, scope, webhookId))) {
      throw new AppError('webhook_not_found', `No webhook ${webhookId}`)
    }
    const limit = query.limit ?? 50
    const after = query.cursor ? decodeCursor(query.cursor) : undefined
    if (after === null) throw new AppError('validation_failed', 'cursor is not one this API issued')
    const rows = await repo.listDeliveries(db, scope, webhookId, {
      limit,
      status: query.status,
      after,
    })
    const page = rows.slice(0, limit)
    const attempts = await repo.attemptsOf(
      db,
      scope,
      page.map((r) => r.id),
    )
    const last = page.at(-1)
    return {
      deliveries: page.map((r) =>
        toDeliveryView(
          r,
          attempts.filter((a) => a.delivery_id === r.id),
        ),
      ),
      next_cursor: rows.length > limit && last ? encodeCursor(last) : null,
    }
  }

  async get(scope: TenantScope, deliveryId: string): Promise<DeliveryView> {
    const db = this.#deps.db.kysely
    const row = await repo.findDelivery(db, scope, deliveryId)
    if (!row) throw new AppError('delivery_not_found', `No webhook delivery ${deliveryId}`)
    return toDeliveryView(row, await repo.attemptsOf(db, scope, [deliveryId]))
  }

  /** dead_letter → queued with a fresh cycle of 5 attempts (same delivery_id and body). */
  async requeue(scope: TenantScope, deliveryId: string): Promise<DeliveryView> {
    const now = isoNow(this.#deps.clock)
    await this.#deps.db.kysely.transaction().execute(async (trx) => {
      if (!(await repo.requeueDeadLetter(trx, scope, deliveryId, now))) {
        const row = await repo.findDelivery(trx, scope, deliveryId)
        if (!row) throw new AppError('delivery_not_found', `No webhook delivery ${deliveryId}`)
        throw new AppError(
          'invalid_state',
          `Only dead-lettered deliveries can be re-queued; this one is ${row.status}`,
        )
      }
      await recordAuditEvent(trx, scope, {
        type: 'webhook_delivery.requeued',
        entityType: 'webhook_delivery',
        entityId: deliveryId,
        data: { delivery_id: deliveryId },
        occurredAt: now,
      })
      await this.wake(trx)
    })
    return this.get(scope, deliveryId)
  }

  /**
   * Queues a `webhook.test` event for this endpoint alone, whatever its scope, through the normal
   * delivery path (signature, retries, history).
   */
  async sendTest(scope: TenantScope, webhookId: string): Promise<DeliveryView> {
    const now = isoNow(this.#deps.clock)
    const id = newId('dlv')
    await this.#deps.db.kysely.transaction().execute(async (trx) => {
      const endpoint = await findEndpoint(trx, scope, webhookId)
      if (!endpoint) throw new AppError('webhook_not_found', `No webhook ${webhookId}`)
      if (endpoint.status !== 'active') {
        throw new AppError('invalid_state', 'The webhook is disabled; enable it to send a test')
      }
      const eventId = newId('evt')
      const payload = buildEnvelope(
        {
          id: eventId,
          tenantId: scope.tenantId,
          mode: scope.mode,
          type: TEST_EVENT_TYPE,
          entityType: 'webhook',
          entityId: webhookId,
          severity: 'info',
          data: { test: true, webhook_id: webhookId },
          occurredAt: now,
        },
        id,
      )
      await repo.insertDeliveries(trx, [
        {
          id,
          tenant_id: scope.tenantId,
          mode: scope.mode,
          endpoint_id: webhookId,
          event_id: eventId,
          event_type: TEST_EVENT_TYPE,
          payload,
          status: 'queued',
          attempts: 0,
          total_attempts: 0,
          requeue_count: 0,
          next_attempt_at: now,
          lease_until: null,
          lease_token: null,
          interrupted: 0,
          last_attempt_at: null,
          last_status_code: null,
          last_error: null,
          delivered_at: null,
          created_at: now,
          updated_at: now,
        },
      ])
      await this.wake(trx)
    })
    return this.get(scope, id)
  }

  /**
   * Deletes delivered and dead-lettered deliveries created more than `retentionDays` ago;
   * returns the count. Queued and failed ones are kept whatever their age.
   */
  async prune(retentionDays: number): Promise<number> {
    const db = this.#deps.db.kysely
    const before = new Date(this.#deps.clock.now().getTime() - retentionDays * 86_400_000)
    const endpoints = await db.selectFrom('webhook_endpoints').select('id').execute()
    let total = 0
    for (const { id } of endpoints) {
      for (;;) {
        const n = await repo.pruneFinishedDeliveries(db, id, before.toISOString(), 1000)
        total += n
        if (n < 1000) break
      }
    }
    return total
  }
}
