import type { AppContext } from '../context.ts'
import type { TaskDefinition } from '../infra/queue/index.ts'

/**
 * A conversion holds the worker's short lease (JOB_LEASE_SECONDS, default 30 s), renewed by the
 * worker's heartbeat however long rendering takes (CONVERSION_TIMEOUT_SECONDS bounds that): a
 * crashed worker's conversion is taken over within one lease, not after the longest possible run.
 */
export function conversionLeaseSeconds(config: AppContext['config']): number {
  return config.worker.leaseSeconds
}

/** Runs one .pptx conversion (ConversionService.run); the service records every outcome. */
export function conversionTask(ctx: AppContext): TaskDefinition {
  return {
    leaseSeconds: conversionLeaseSeconds(ctx.config),
    // Retries after an internal error: 30 s, then 2 min.
    retryDelaySeconds: (attempt) => (attempt <= 1 ? 30 : 120),
    handler: (payload, job) => ctx.services.conversions.run(payload, job),
  }
}
