import type { Config } from '../config.ts'
import type { AppContext } from '../context.ts'
import type { TaskRegistry } from '../infra/queue/index.ts'
import { CONVERSION_TASK } from '../modules/conversions/conversion.service.ts'
import { EVENT_FANOUT_TASK, WEBHOOK_DELIVER_TASK } from '../modules/webhooks/index.ts'
import { CLEANUP_INTERVAL_SECONDS, cleanupTask } from './cleanup.job.ts'
import { conversionTask } from './conversion.job.ts'
import {
  DISPATCH_EXPIRY_INTERVAL_SECONDS,
  DISPATCH_EXPIRY_TASK,
  dispatchExpiryTask,
} from './dispatch-expiry.job.ts'
import { SCORM_STATEMENTS_TASK, scormStatementsTask } from './scorm-statements.job.ts'
import { webhookDeliverTask } from './webhook-deliver.job.ts'
import { webhookFanoutTask } from './webhook-fanout.job.ts'
import { WEBHOOK_PRUNE_INTERVAL_SECONDS, webhookPruneTask } from './webhook-prune.job.ts'

/** Every task a worker can run, by name. */
export function taskRegistry(ctx: AppContext): TaskRegistry {
  return {
    'maintenance.cleanup': cleanupTask(ctx),
    [CONVERSION_TASK]: conversionTask(ctx),
    [EVENT_FANOUT_TASK]: webhookFanoutTask(ctx),
    [WEBHOOK_DELIVER_TASK]: webhookDeliverTask(ctx),
    'webhooks.prune': webhookPruneTask(ctx),
    [DISPATCH_EXPIRY_TASK]: dispatchExpiryTask(ctx),
    [SCORM_STATEMENTS_TASK]: scormStatementsTask(ctx),
  }
}

export interface ScheduleSpec {
  name: string
  task: string
  intervalSeconds: number
}

/** Recurring jobs with a fixed interval; defined at every worker start (idempotent). */
export const SCHEDULES: ReadonlyArray<ScheduleSpec> = [
  {
    name: 'maintenance.cleanup',
    task: 'maintenance.cleanup',
    intervalSeconds: CLEANUP_INTERVAL_SECONDS,
  },
  {
    name: 'webhooks.prune',
    task: 'webhooks.prune',
    intervalSeconds: WEBHOOK_PRUNE_INTERVAL_SECONDS,
  },
  {
    name: DISPATCH_EXPIRY_TASK,
    task: DISPATCH_EXPIRY_TASK,
    intervalSeconds: DISPATCH_EXPIRY_INTERVAL_SECONDS,
  },
]

/** Every recurring job, including those whose interval is configured. */
export function schedules(config: Config): ScheduleSpec[] {
  return [
    ...SCHEDULES,
    {
      name: EVENT_FANOUT_TASK,
      task: EVENT_FANOUT_TASK,
      intervalSeconds: config.eventFanoutIntervalSeconds,
    },
    {
      name: SCORM_STATEMENTS_TASK,
      task: SCORM_STATEMENTS_TASK,
      intervalSeconds: config.eventFanoutIntervalSeconds,
    },
  ]
}
