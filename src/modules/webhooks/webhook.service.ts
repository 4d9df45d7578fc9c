import type { Db } from '../../infra/db/database.ts'
import { cursorPosition, pageOf } from '../../infra/db/keyset.ts'
import type { Executor } from '../../infra/db/schema.ts'
import type { WebhookEndpointsTable } from '../../infra/db/tables/webhooks.ts'
import type { HttpEgressClient } from '../../infra/http-egress/index.ts'
import { isHttpEgressError } from '../../infra/http-egress/index.ts'
import { AppError } from '../../shared/app-error.ts'
import { type Clock, isoNow } from '../../shared/clock.ts'
import { newId } from '../../shared/ids.ts'
import { recordAuditEvent } from '../events/audit-event.repository.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import type { SecretBox } from './secret-box.ts'
import { toWebhookView, type WebhookView } from './webhook.mapper.ts'
import type { WebhookDeliveryService } from './webhook-delivery.service.ts'
import * as repo from './webhook-endpoint.repository.ts'
import {
  type CreateWebhookInput,
  checkSecret,
  normaliseCreate,
  normaliseUpdate,
  type UpdateWebhookInput,
} from './webhook-input.ts'
import { generateSecret } from './webhook-signature.ts'

export interface WebhookServiceDeps {
  db: Db
  clock: Clock
  egress: HttpEgressClient
  box: SecretBox
  deliveries: WebhookDeliveryService
  /** How long the previous secret keeps signing after a rotation, by default. */
  secretOverlapSeconds: number
  timing: WebhookJobTiming
}

/** Job leases the webhook tasks need: each outlives the longest run of its handler. */
export interface WebhookJobTiming {
  senderLeaseSeconds: number
  fanoutLeaseSeconds: number
}

export interface RotatedSecret {
  webhook: WebhookView
  /** The new signing secret: shown this once. */
  secret: string
}

/**
 * Webhook endpoints for the API and the dashboard: register (the URL checked against the SSRF
 * policy), list, read, update, delete, rotate the secret, send a test event; deliveries through
 * `deliveries` (history, re-queue). Every call takes the tenant scope; every change writes an
 * audit event (`webhook.*`, never delivered).
 */
export class WebhookService {
  readonly #deps: WebhookServiceDeps
  constructor(deps: WebhookServiceDeps) {
    this.#deps = deps
  }

  /** Delivery history, re-queue, test events; fan-out and sender runs for the jobs. */
  get deliveries(): WebhookDeliveryService {
    return this.#deps.deliveries
  }

  get timing(): WebhookJobTiming {
    return this.#deps.timing
  }

  async create(scope: TenantScope, input: CreateWebhookInput): Promise<WebhookView> {
    const body = normaliseCreate(scope, input)
    const url = await this.#checkUrl(body.url)
    const now = isoNow(this.#deps.clock)
    const row: WebhookEndpointsTable = {
      id: newId('whk'),
      tenant_id: scope.tenantId,
      mode: scope.mode,
      label: body.label,
      url,
      event_scope: body.eventScope,
      event_types: body.eventTypes ? JSON.stringify(body.eventTypes) : null,
      status: 'active',
      secret_box: this.#deps.box.seal(body.secret),
      previous_secret_box: null,
      previous_secret_expires_at: null,
      secret_rotated_at: null,
      created_at: now,
      updated_at: now,
    }
    await this.#deps.db.kysely.transaction().execute(async (trx) => {
      await repo.insertEndpoint(trx, scope, row)
      await this.#audit(trx, scope, 'webhook.created', row.id, now, {
        url,
        label: row.label,
        event_scope: row.event_scope,
        events: body.eventTypes,
      })
    })
    return toWebhookView(row, this.#deps.clock.now())
  }

  async list(
    scope: TenantScope,
    query: { limit?: number; cursor?: string },
  ): Promise<{ webhooks: WebhookView[]; next_cursor: string | null }> {
    const limit = query.limit ?? 50
    const after = cursorPosition(query.cursor || undefined)
    const rows = await repo.listEndpoints(this.#deps.db.kysely, scope, { limit, after })
    const page = pageOf(rows, limit)
    const now = this.#deps.clock.now()
    return { webhooks: page.data.map((r) => toWebhookView(r, now)), next_cursor: page.next_cursor }
  }

  async get(scope: TenantScope, id: string): Promise<WebhookView> {
    return toWebhookView(
      await this.require(this.#deps.db.kysely, scope, id),
      this.#deps.clock.now(),
    )
  }

  /**
   * Changes url, label, scope/events or status (`disabled` stops new deliveries and holds queued
   * ones until re-enabled). Re-enabling wakes the senders.
   */
  async update(scope: TenantScope, id: string, input: UpdateWebhookInput): Promise<WebhookView> {
    const patch = normaliseUpdate(scope, input)
    const url = patch.url === undefined ? undefined : await this.#checkUrl(patch.url)
    const now = isoNow(this.#deps.clock)
    await this.#deps.db.kysely.transaction().execute(async (trx) => {
      const current = await this.require(trx, scope, id)
      const changes: repo.EndpointChanges = { updated_at: now }
      if (url !== undefined) changes.url = url
      if (patch.label !== undefined) changes.label = patch.label
      if (patch.status !== undefined) changes.status = patch.status
      if (patch.subscription) {
        changes.event_scope = patch.subscription.eventScope
        const types = patch.subscription.eventTypes
        changes.event_types = types ? JSON.stringify(types) : null
      }
      await repo.updateEndpoint(trx, scope, id, changes)
      const { updated_at: _, ...changed } = changes
      await this.#audit(trx, scope, 'webhook.updated', id, now, changed)
      if (current.status === 'disabled' && patch.status === 'active') {
        await this.#deps.deliveries.wake(trx)
      }
    })
    return this.get(scope, id)
  }

  /** Deletes the endpoint, its deliveries and their history. */
  async delete(scope: TenantScope, id: string): Promise<void> {
    const now = isoNow(this.#deps.clock)
    await this.#deps.db.kysely.transaction().execute(async (trx) => {
      const current = await this.require(trx, scope, id)
      await repo.deleteEndpoint(trx, scope, id)
      await this.#audit(trx, scope, 'webhook.deleted', id, now, { url: current.url })
    })
  }

  /**
   * Replaces the signing secret with `secret` (or a generated `whsec_<base64>` one) and returns it
   * once. For `overlapSeconds` (default: WEBHOOK_SECRET_OVERLAP_SECONDS, 24 h) the old secret
   * still signs the spec's headers and is listed in `webhook-signature` after the new one, so
   * receivers can switch without losing deliveries; 0 drops it at once.
   */
  async rotateSecret(
    scope: TenantScope,
    id: string,
    input: { secret?: string; overlapSeconds?: number } = {},
  ): Promise<RotatedSecret> {
    const secret = input.secret ?? generateSecret()
    checkSecret(secret)
    const overlap = input.overlapSeconds ?? this.#deps.secretOverlapSeconds
    const clockNow = this.#deps.clock.now()
    const now = clockNow.toISOString()
    const expires = new Date(clockNow.getTime() + overlap * 1000).toISOString()
    await this.#deps.db.kysely.transaction().execute(async (trx) => {
      const current = await this.require(trx, scope, id)
      await repo.updateEndpoint(trx, scope, id, {
        secret_box: this.#deps.box.seal(secret),
        previous_secret_box: overlap > 0 ? current.secret_box : null,
        previous_secret_expires_at: overlap > 0 ? expires : null,
        secret_rotated_at: now,
        updated_at: now,
      })
      await this.#audit(trx, scope, 'webhook.secret_rotated', id, now, {
        previous_secret_expires_at: overlap > 0 ? expires : null,
      })
    })
    return { webhook: await this.get(scope, id), secret }
  }

  /** The endpoint row, or `webhook_not_found` (also for another tenant's or mode's id). */
  async require(db: Executor, scope: TenantScope, id: string): Promise<WebhookEndpointsTable> {
    const row = await repo.findEndpoint(db, scope, id)
    if (!row) throw new AppError('webhook_not_found', `No webhook ${id}`)
    return row
  }

  async #checkUrl(url: string): Promise<string> {
    try {
      return (await this.#deps.egress.checkUrl(url)).url
    } catch (err) {
      if (!isHttpEgressError(err)) throw err
      throw new AppError('invalid_webhook_url', `The webhook URL is refused: ${err.message}`, {
        reason: err.code,
      })
    }
  }

  async #audit(
    trx: Executor,
    scope: TenantScope,
    type: string,
    id: string,
    at: string,
    data: Record<string, unknown>,
  ): Promise<void> {
    await recordAuditEvent(trx, scope, {
      type,
      entityType: 'webhook',
      entityId: id,
      data: { webhook_id: id, ...data },
      occurredAt: at,
    })
  }
}
