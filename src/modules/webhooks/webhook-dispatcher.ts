import { setTimeout as sleep } from 'node:timers/promises'
import type { Db } from '../../infra/db/database.ts'
import type { WebhookEndpointsTable } from '../../infra/db/tables/webhooks.ts'
import type { HttpEgressClient } from '../../infra/http-egress/index.ts'
import type { Clock } from '../../shared/clock.ts'
import { type ClaimedDelivery, claimDueDeliveries } from './delivery-claim.repository.ts'
import {
  type AttemptOutcome,
  deadLetterLostFinalAttempts,
  dropDelivery,
  recordOutcomes,
  releaseDelivery,
} from './delivery-outcome.repository.ts'
import { applyAttempt } from './delivery-policy.ts'
import type { SecretBox } from './secret-box.ts'
import { endpointsByIds } from './webhook-endpoint.repository.ts'
import { sendAttempt } from './webhook-sender.ts'
import { deliveryHeaders } from './webhook-signature.ts'

export interface DispatcherOptions {
  /** Requests one run keeps in flight. */
  concurrency: number
  /** Deliveries in flight per endpoint, across every worker. */
  perEndpoint: number
  /** Total time one attempt may take (spec: 30 s). */
  timeoutMs: number
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

/**
 * Sends due deliveries: a pipeline keeping up to `concurrency` requests in flight, refilled from
 * the database as requests finish, with at most `perEndpoint` per endpoint (counted over every
 * worker's leases), so a slow or dead receiver holds a couple of slots and never the run.
 */
export class WebhookDispatcher {
  readonly #db: Db
  readonly #clock: Clock
  readonly #egress: HttpEgressClient
  readonly #box: SecretBox
  readonly #options: DispatcherOptions
  readonly #logger: DispatchLogger
  readonly #plainSecrets = new Map<string, string>()

  constructor(deps: {
    db: Db
    clock: Clock
    egress: HttpEgressClient
    box: SecretBox
    options: DispatcherOptions
    logger: DispatchLogger
  }) {
    this.#db = deps.db
    this.#clock = deps.clock
    this.#egress = deps.egress
    this.#box = deps.box
    this.#options = deps.options
    this.#logger = deps.logger
  }

  async run(signal: AbortSignal): Promise<DispatchStats> {
    const stats: DispatchStats = {
      attempts: 0,
      delivered: 0,
      failed: 0,
      deadLettered: 0,
      budgetSpent: false,
    }
    const { concurrency, budgetMs, idlePollMs, coalesceMs } = this.#options
    const started = performance.now()
    await deadLetterLostFinalAttempts(this.#db.kysely, this.#clock.now())
    const inFlight = new Set<Promise<void>>()
    const finished: AttemptOutcome[] = []
    const flush = async () => {
      if (finished.length === 0) return
      const batch = finished.splice(0)
      try {
        const written = await recordOutcomes(this.#db, batch)
        for (const o of batch) {
          if (!written.has(o.delivery.id)) {
            this.#logger.warn(
              { deliveryId: o.delivery.id },
              'webhook attempt finished after its lease was taken over; outcome ignored',
            )
          } else if (o.status === 'delivered') stats.delivered++
          else if (o.status === 'failed') stats.failed++
          else stats.deadLettered++
        }
      } catch (err) {
        // The leases run out and another run retries; those attempts are marked interrupted.
        this.#logger.error({ err, count: batch.length }, 'could not record webhook outcomes')
      }
    }
    while (!signal.aborted) {
      // Outcomes first: they free endpoint slots the claim can then fill.
      await flush()
      const free = concurrency - inFlight.size
      const withinBudget = performance.now() - started < budgetMs
      if (!withinBudget) stats.budgetSpent = true
      let claimed = 0
      if (free > 0 && withinBudget) {
        const batch = await claimDueDeliveries(this.#db, {
          now: this.#clock.now(),
          limit: free,
          perEndpoint: this.#options.perEndpoint,
          leaseSeconds: this.#options.leaseSeconds,
        })
        claimed = batch.length
        if (claimed > 0) {
          const ids = [...new Set(batch.map((d) => d.endpointId))]
          const rows = await endpointsByIds(this.#db.kysely, ids)
          const endpoints = new Map(rows.map((r) => [r.id, r]))
          for (const delivery of batch) {
            const task: Promise<void> = this.#attempt(
              delivery,
              endpoints.get(delivery.endpointId),
              signal,
            )
              .then((outcome) => {
                if (outcome) {
                  stats.attempts++
                  finished.push(outcome)
                }
              })
              .finally(() => inFlight.delete(task))
            inFlight.add(task)
          }
        }
      }
      if (inFlight.size === 0) {
        if (claimed === 0 && finished.length === 0) break
        continue
      }
      // Wait for a slot (or for newly due work), then give simultaneous completions a moment
      // to land, so one commit records them and one claim refills them.
      const poll = new AbortController()
      await Promise.race([
        ...inFlight,
        sleep(idlePollMs, undefined, { signal: poll.signal, ref: false }).catch(() => {}),
      ])
      poll.abort()
      if (coalesceMs > 0 && finished.length < inFlight.size) await sleep(coalesceMs)
    }
    await Promise.allSettled([...inFlight])
    await flush()
    return stats
  }

  #secrets(endpoint: WebhookEndpointsTable, now: Date): string[] {
    const boxes = [endpoint.secret_box]
    const until = endpoint.previous_secret_expires_at
    if (endpoint.previous_secret_box && until && Date.parse(until) > now.getTime()) {
      boxes.push(endpoint.previous_secret_box)
    }
    return boxes.map((box) => {
      let plain = this.#plainSecrets.get(box)
      if (plain === undefined) {
        if (this.#plainSecrets.size > 10_000) this.#plainSecrets.clear()
        plain = this.#box.open(box)
        this.#plainSecrets.set(box, plain)
      }
      return plain
    })
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
    const db = this.#db.kysely
    try {
      const now = this.#clock.now()
      if (!endpoint || endpoint.tenant_id !== delivery.tenantId) {
        await dropDelivery(db, delivery, now.toISOString(), 'the webhook endpoint was deleted')
        return null
      }
      if (endpoint.status !== 'active') {
        await releaseDelivery(db, delivery, now.toISOString())
        return null
      }
      // Matched by mode when queued; checked again here in case the endpoint's mode changed.
      if (endpoint.mode !== delivery.mode) {
        await dropDelivery(
          db,
          delivery,
          now.toISOString(),
          `not sent: the endpoint is now ${endpoint.mode} and this is a ${delivery.mode} event`,
        )
        return null
      }
      const headers = deliveryHeaders({
        body: delivery.payload,
        secrets: this.#secrets(endpoint, now),
        deliveryId: delivery.id,
        endpointId: endpoint.id,
        eventType: delivery.eventType,
        attempt: delivery.number,
        timestampSeconds: Math.floor(now.getTime() / 1000),
      })
      const sent = await sendAttempt(this.#egress, {
        url: endpoint.url,
        headers,
        body: delivery.payload,
        timeoutMs: this.#options.timeoutMs,
        signal,
      })
      if (sent.aborted) {
        await releaseDelivery(db, delivery, this.#clock.now().toISOString())
        return null
      }
      const at = this.#clock.now()
      const next = applyAttempt(delivery.attempt, sent.result, at)
      return {
        delivery,
        status: next.status,
        nextAttemptAt: next.nextAttemptAt?.toISOString() ?? null,
        at: at.toISOString(),
        statusCode: sent.statusCode,
        error: sent.error,
        record: {
          attempted_at: now.toISOString(),
          outcome: next.outcome,
          status_code: sent.statusCode,
          latency_ms: sent.latencyMs,
          error: sent.error,
          response_excerpt: sent.excerpt,
          response_truncated: sent.truncated ? 1 : 0,
        },
      }
    } catch (err) {
      // The lease runs out and another run retries; the attempt is then marked interrupted.
      this.#logger.error({ err, deliveryId: delivery.id }, 'could not complete a webhook attempt')
      return null
    }
  }
}
