import type { Db } from '../../infra/db/database.ts'
import type { WebhookEndpointsTable } from '../../infra/db/tables/webhooks.ts'
import type { HttpEgressClient } from '../../infra/http-egress/index.ts'
import type { Metrics } from '../../infra/metrics/index.ts'
import type { Clock } from '../../shared/clock.ts'
import type { ClaimedDelivery } from './delivery-claim.cross-tenant.repository.ts'
import {
  type AttemptOutcome,
  deadLetterLostFinalAttempts,
  dropDelivery,
  releaseDelivery,
} from './delivery-outcome.cross-tenant.repository.ts'
import { applyAttempt } from './delivery-policy.ts'
import type { SecretBox } from './secret-box.ts'
import {
  type DispatchLogger,
  type DispatchStats,
  SenderRun,
  type SenderRunOptions,
} from './sender-run.ts'
import { type SendResult, sendAttempt } from './webhook-sender.ts'
import { deliveryHeaders, type SigningSecrets } from './webhook-signature.ts'

export type { DispatchLogger, DispatchStats } from './sender-run.ts'

export interface PipelineOptions extends SenderRunOptions {
  /** Total time one attempt may take (spec: 30 s). */
  timeoutMs: number
}

/** Opened secret boxes kept in memory, so a run does not decrypt per attempt. */
const MAX_CACHED_SECRETS = 10_000

/**
 * Sends due deliveries: a pipeline keeping up to `concurrency` requests in flight, refilled from
 * the database as requests finish, with at most `perEndpoint` per endpoint (counted over every
 * worker's leases), so a slow or dead receiver holds a couple of slots and never the run. Each
 * `run()` is one {@link SenderRun}; this class makes the attempts (sign, send, classify).
 */
export class DeliveryPipeline {
  readonly #db: Db
  readonly #clock: Clock
  readonly #egress: HttpEgressClient
  readonly #box: SecretBox
  readonly #options: PipelineOptions
  readonly #logger: DispatchLogger
  readonly #metrics: Metrics
  readonly #plainSecrets = new Map<string, string>()

  constructor(deps: {
    db: Db
    clock: Clock
    egress: HttpEgressClient
    box: SecretBox
    options: PipelineOptions
    logger: DispatchLogger
    metrics: Metrics
  }) {
    this.#db = deps.db
    this.#clock = deps.clock
    this.#egress = deps.egress
    this.#box = deps.box
    this.#options = deps.options
    this.#logger = deps.logger
    this.#metrics = deps.metrics
  }

  async run(signal: AbortSignal): Promise<DispatchStats> {
    await deadLetterLostFinalAttempts(this.#db.kysely, this.#clock.now())
    const run = new SenderRun(
      {
        db: this.#db,
        clock: this.#clock,
        options: this.#options,
        logger: this.#logger,
        attempt: (delivery, endpoint, s) => this.#attempt(delivery, endpoint, s),
      },
      signal,
    )
    return run.execute()
  }

  /** The current secret, and the previous one while its overlap lasts. */
  #secrets(endpoint: WebhookEndpointsTable, now: Date): SigningSecrets {
    const until = endpoint.previous_secret_expires_at
    const overlapping = endpoint.previous_secret_box && until && Date.parse(until) > now.getTime()
    return {
      current: this.#open(endpoint.secret_box),
      previous:
        overlapping && endpoint.previous_secret_box
          ? this.#open(endpoint.previous_secret_box)
          : null,
    }
  }

  #open(box: string): string {
    let plain = this.#plainSecrets.get(box)
    if (plain === undefined) {
      if (this.#plainSecrets.size > MAX_CACHED_SECRETS) this.#plainSecrets.clear()
      plain = this.#box.open(box)
      this.#plainSecrets.set(box, plain)
    }
    return plain
  }

  /**
   * One attempt of one leased delivery; never rejects. Returns its outcome for the run to record,
   * or null when there was no attempt (endpoint gone, disabled or now in another mode; the
   * request cancelled by our own signal), in which case the lease was already dealt with.
   */
  async #attempt(
    delivery: ClaimedDelivery,
    endpoint: WebhookEndpointsTable | undefined,
    signal: AbortSignal,
  ): Promise<AttemptOutcome | null> {
    try {
      const now = this.#clock.now()
      if (!(await this.#sendable(delivery, endpoint, now)) || !endpoint) return null
      const sent = await sendAttempt(this.#egress, {
        url: endpoint.url,
        headers: deliveryHeaders({
          body: delivery.payload,
          secrets: this.#secrets(endpoint, now),
          deliveryId: delivery.id,
          endpointId: endpoint.id,
          eventType: delivery.eventType,
          attempt: delivery.number,
          timestampSeconds: Math.floor(now.getTime() / 1000),
        }),
        body: delivery.payload,
        timeoutMs: this.#options.timeoutMs,
        signal,
      })
      if (sent.aborted) {
        await releaseDelivery(this.#db.kysely, delivery, this.#clock.now().toISOString())
        return null
      }
      return this.#outcome(delivery, sent, now)
    } catch (err) {
      // The lease runs out and another run retries; the attempt is then marked interrupted.
      this.#logger.error({ err, deliveryId: delivery.id }, 'could not complete a webhook attempt')
      return null
    }
  }

  /**
   * Whether the delivery may go out now; if not, its lease is dealt with here: dropped when the
   * endpoint is gone or now in another mode, released (kept queued) when it is disabled.
   */
  async #sendable(
    delivery: ClaimedDelivery,
    endpoint: WebhookEndpointsTable | undefined,
    now: Date,
  ): Promise<boolean> {
    const db = this.#db.kysely
    const at = now.toISOString()
    if (!endpoint || endpoint.tenant_id !== delivery.tenantId) {
      await dropDelivery(db, delivery, at, 'the webhook endpoint was deleted')
      return false
    }
    if (endpoint.status !== 'active') {
      await releaseDelivery(db, delivery, at)
      return false
    }
    // Matched by mode when queued; checked again here in case the endpoint's mode changed.
    if (endpoint.mode !== delivery.mode) {
      const why = `not sent: the endpoint is now ${endpoint.mode} and this is a ${delivery.mode} event`
      await dropDelivery(db, delivery, at, why)
      return false
    }
    return true
  }

  /** The state-table step for what the receiver (or the network) answered. */
  #outcome(delivery: ClaimedDelivery, sent: SendResult, attemptedAt: Date): AttemptOutcome {
    const at = this.#clock.now()
    const next = applyAttempt(delivery.attempt, sent.result, at)
    this.#metrics.webhookAttempt(next.outcome, sent.latencyMs / 1000)
    return {
      delivery,
      status: next.status,
      nextAttemptAt: next.nextAttemptAt?.toISOString() ?? null,
      at: at.toISOString(),
      statusCode: sent.statusCode,
      error: sent.error,
      record: {
        attempted_at: attemptedAt.toISOString(),
        outcome: next.outcome,
        status_code: sent.statusCode,
        latency_ms: sent.latencyMs,
        error: sent.error,
        response_excerpt: sent.excerpt,
        response_truncated: sent.truncated ? 1 : 0,
      },
    }
  }
}
