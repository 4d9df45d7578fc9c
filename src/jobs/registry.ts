import type { AppContext } from '../context.ts'
import type { TaskRegistry } from '../infra/queue/index.ts'
import { CLEANUP_INTERVAL_SECONDS, cleanupTask } from './cleanup.job.ts'

/** Every task a worker can run, by name. */
export function taskRegistry(ctx: AppContext): TaskRegistry {
  return {
    'maintenance.cleanup': cleanupTask(ctx),
  }
}

/** Recurring jobs; defined at every worker start (idempotent). */
export const SCHEDULES: ReadonlyArray<{ name: string; task: string; intervalSeconds: number }> = [
  {
    name: 'maintenance.cleanup',
    task: 'maintenance.cleanup',
    intervalSeconds: CLEANUP_INTERVAL_SECONDS,
  },
]
