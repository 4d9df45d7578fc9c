import type { SecureContextOptions } from 'node:tls'
import type { Db } from '../../infra/db/database.ts'
import type { HttpEgressClient, Resolver } from '../../infra/http-egress/index.ts'
import { type Metrics, noopMetrics } from '../../infra/metrics/index.ts'
import { createQueue } from '../../infra/queue/index.ts'
import type { Clock } from '../../shared/clock.ts'
import { DeliveryPipeline, type DispatchLogger } from './delivery-pipeline.ts'
import { webhookTiming } from './delivery-policy.ts'
import { DEFAULT_SENDER_LANES, DeliveryScheduler } from './delivery-scheduler.ts'
import { SecretBox } from './secret-box.ts'
import { WebhookService } from './webhook.service.ts'
import { WebhookDeliveryService } from './webhook-delivery.service.ts'

export { EVENT_FANOUT_TASK, WEBHOOK_DELIVER_TASK } from './delivery-scheduler.ts'
export { type WebhookJobTiming, WebhookService } from './webhook.service.ts'
export { WebhookDeliveryService } from './webhook-delivery.service.ts'

/**
 * Knobs given to one instance by its creator (tests, local development); never read from the
 * environment, so no deployment can turn certificate checks or the address policy off globally.
 */
export interface WebhookRuntimeOptions {
  /** Trust roots replacing the bundled CAs (a test CA). */
  ca?: SecureContextOptions['ca']
  /** A resolver replacing DNS (tests). */
  resolve?: Resolver
  /** Addresses exempt from the SSRF block, added to EGRESS_ALLOW_ADDRESSES. */
  allowAddresses?: readonly string[]
  timeoutMs?: number
  leaseMarginSeconds?: number
  senderBudgetMs?: number
}

export interface WebhookModuleOptions {
  db: Db
  clock: Clock
  /** SECRET_KEY: encrypts signing secrets at rest. */
  secretKey: string
  /** The SSRF-safe client deliveries and registration checks go through. */
  egress: HttpEgressClient
  /** Default overlap of the previous secret after a rotation. Default: 86 400 s. */
  secretOverlapSeconds?: number
  /** Deliveries in flight per endpoint across all workers. Default: 2. */
  perEndpoint?: number
  /** Requests in flight per sender run. Default: 64. */
  concurrency?: number
  /** Sender runs that may run at once (job keys). Default: 2. */
  lanes?: number
  /** Time allowed for one attempt. Default: 30 000 ms (the spec's receiver budget). */
  timeoutMs?: number
  /** Added to the timeout for a delivery's lease. Default: 30 s. */
  leaseMarginSeconds?: number
  /** A sender run stops claiming after this long. Default: 30 000 ms. */
  senderBudgetMs?: number
  logger?: DispatchLogger
  /** Records attempt outcomes and latencies. Default: nothing recorded. */
  metrics?: Metrics
}

const consoleLogger: DispatchLogger = {
  warn: (obj, msg) => console.warn(`[webhooks] ${msg}`, obj),
  error: (obj, msg) => console.error(`[webhooks] ${msg}`, obj),
}

/**
 * Wires the webhook module: the service (endpoints), its delivery service (history, re-queue,
 * tests), the scheduler (fan-out, sender lanes) and the pipeline that sends.
 */
export function createWebhookService(options: WebhookModuleOptions): WebhookService {
  const timing = webhookTiming(options)
  const perEndpoint = options.perEndpoint ?? 2
  const box = new SecretBox(options.secretKey)
  const queue = createQueue(options.db, { clock: options.clock })
  const pipeline = new DeliveryPipeline({
    db: options.db,
    clock: options.clock,
    egress: options.egress,
    box,
    logger: options.logger ?? consoleLogger,
    metrics: options.metrics ?? noopMetrics,
    options: {
      concurrency: options.concurrency ?? 64,
      perEndpoint,
      timeoutMs: timing.timeoutMs,
      leaseSeconds: timing.deliveryLeaseSeconds,
      budgetMs: timing.senderBudgetMs,
      idlePollMs: 1000,
      coalesceMs: 2,
    },
  })
  const scheduler = new DeliveryScheduler({
    db: options.db,
    clock: options.clock,
    queue,
    pipeline,
    perEndpoint,
    lanes: options.lanes ?? DEFAULT_SENDER_LANES,
    fanoutBudgetMs: timing.fanoutBudgetMs,
  })
  return new WebhookService({
    db: options.db,
    clock: options.clock,
    egress: options.egress,
    box,
    deliveries: new WebhookDeliveryService({ db: options.db, clock: options.clock, scheduler }),
    secretOverlapSeconds: options.secretOverlapSeconds ?? 86_400,
    timing: {
      senderLeaseSeconds: timing.senderLeaseSeconds,
      fanoutLeaseSeconds: timing.fanoutLeaseSeconds,
    },
  })
}
