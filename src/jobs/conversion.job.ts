import type { AppContext } from '../context.ts'
import type { TaskDefinition } from '../infra/queue/index.ts'

/**
 * The lease must outlive the longest run, waiting for a rendering slot included: with more
 * worker slots than rendering slots a job can queue behind others' renders. Default settings
 * (timeout 300 s, 4 worker slots, 2 renders): 13 min, after which a crashed worker's job is
 * taken over by another worker.
 */
export function conversionLeaseSeconds(config: AppContext['config']): number {
  const rounds = Math.ceil(config.worker.concurrency / config.conversions.concurrency)
  return (config.conversions.timeoutSeconds + 60) * rounds + 60
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
