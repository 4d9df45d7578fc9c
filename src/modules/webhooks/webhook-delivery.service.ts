import type { Db } from '../../infra/db/database.ts'
import { cursorPosition, pageOf } from '../../infra/db/keyset.ts'
import type { Executor } from '../../infra/db/schema.ts'
import type { DeliveryStatus, WebhookDeliveriesTable } from '../../infra/db/tables/webhooks.ts'
import { AppError } from '../../shared/app-error.ts'
import { type Clock, isoNow } from '../../shared/clock.ts'
import { newId } from '../../shared/ids.ts'
import { recordAuditEvent } from '../events/audit-event.repository.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import type { DispatchStats } from './delivery-pipeline.ts'
import type { DeliveryScheduler } from './delivery-scheduler.ts'
import { type DeliveryView, toDeliveryView } from './webhook.mapper.ts'
import * as repo from './webhook-delivery.repository.ts'
import { findEndpoint } from './webhook-endpoint.repository.ts'
import { buildEnvelope } from './webhook-envelope.ts'
import { TEST_EVENT_TYPE } from './webhook-events.ts'
import { allEndpointIds, pruneFinishedDeliveries } from './webhook-jobs.cross-tenant.repository.ts'

export interface WebhookDeliveryServiceDeps {
  db: Db
  clock: Clock
  scheduler: DeliveryScheduler
}

/**
 * Webhook deliveries for the API, the dashboard and the jobs: history, re-queue of dead letters,
 * test events, pruning; `fanOut` and `send` are the scheduler's runs, here so the jobs have one
 * entry point.
 */
export class WebhookDeliveryService {
  readonly #deps: WebhookDeliveryServiceDeps
  constructor(deps: WebhookDeliveryServiceDeps) {
    this.#deps = deps
  }

  /** See {@link DeliveryScheduler.fanOut}. */
  fanOut(batchSize?: number): Promise<{ events: number; deliveries: number }> {
    return this.#deps.scheduler.fanOut(batchSize)
  }

  /** See {@link DeliveryScheduler.send}. */
  send(lane: number, signal: AbortSignal): Promise<DispatchStats> {
    return this.#deps.scheduler.send(lane, signal)
  }

  /** See {@link DeliveryScheduler.wake}. */
  wake(executor: Executor, runAt?: Date): Promise<void> {
    return this.#deps.scheduler.wake(executor, runAt)
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
    const after = cursorPosition(query.cursor || undefined)
    const rows = await repo.listDeliveries(db, scope, webhookId, {
      limit,
      status: query.status,
      after,
    })
    const page = pageOf(rows, limit)
    const attempts = await repo.attemptsOf(
      db,
      scope,
      page.data.map((r) => r.id),
    )
    return {
      deliveries: page.data.map((r) =>
        toDeliveryView(
          r,
          attempts.filter((a) => a.delivery_id === r.id),
        ),
      ),
      next_cursor: page.next_cursor,
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
      await this.#deps.scheduler.wake(trx)
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
      await repo.insertScopedDeliveries(trx, scope, [testDeliveryRow(scope, webhookId, id, now)])
      await this.#deps.scheduler.wake(trx)
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
    let total = 0
    for (const id of await allEndpointIds(db)) {
      for (;;) {
        const n = await pruneFinishedDeliveries(db, id, before.toISOString(), 1000)
        total += n
        if (n < 1000) break
      }
    }
    return total
  }
}

/** A queued `webhook.test` delivery to one endpoint, with its own (never stored) event id. */
function testDeliveryRow(
  scope: TenantScope,
  webhookId: string,
  id: string,
  now: string,
): WebhookDeliveriesTable {
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
  return {
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
  }
}
