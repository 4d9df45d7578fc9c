import type { Clock } from '../../shared/clock.ts'
import type { Db } from '../db/database.ts'
import { enqueueJob } from './job-enqueue.ts'

/** The payload of a job started by a schedule. */
export interface ScheduledPayload {
  schedule: string
  /** The period's slot (ISO 8601), the same for every worker that saw it due. */
  scheduledFor: string
}

/**
 * Creates or updates the persisted schedule `name`: one `task` job every `intervalSeconds`
 * (an integer ≥ 1). A new schedule is due at once. Redefining it (every process does so at start)
 * keeps its timetable, but brings the next run forward to at most one new interval from now, so
 * shortening the interval takes effect without waiting out the old one.
 */
export async function defineSchedule(
  db: Db,
  clock: Clock,
  name: string,
  task: string,
  intervalSeconds: number,
): Promise<void> {
  if (!name || !task) throw new Error('defineSchedule: name and task are required')
  if (!Number.isInteger(intervalSeconds) || intervalSeconds < 1) {
    throw new Error(
      `defineSchedule: intervalSeconds must be an integer >= 1, got ${intervalSeconds}`,
    )
  }
  const now = clock.now()
  const cap = new Date(now.getTime() + intervalSeconds * 1000).toISOString()
  await db.kysely
    .insertInto('job_schedules')
    .values({
      name,
      task,
      interval_seconds: intervalSeconds,
      next_run_at: now.toISOString(),
      last_run_at: null,
    })
    .onConflict((oc) =>
      oc.column('name').doUpdateSet((eb) => ({
        task: eb.ref('excluded.task'),
        interval_seconds: eb.ref('excluded.interval_seconds'),
        next_run_at: eb
          .case()
          .when('job_schedules.next_run_at', '>', cap)
          .then(cap)
          .else(eb.ref('job_schedules.next_run_at'))
          .end(),
      })),
    )
    .execute()
}

/**
 * Fires every due schedule once for its current period and returns how many this call advanced.
 * For each: enqueue the job with key `schedule:<name>:<slot>` in `unsafe_dedupe` mode, then move
 * `next_run_at` on by compare-and-set (`WHERE name = ? AND next_run_at = <slot read>`). Many
 * workers may see the same slot due; the key lets only one job exist for it and the CAS lets only
 * one of them advance the schedule. Enqueueing first means a crash between the two statements
 * loses nothing: the next tick finds the slot still due, its enqueue is a no-op, and it advances.
 * Missed periods are not replayed: the next slot is the first one after now.
 */
export async function fireDueSchedules(db: Db, clock: Clock): Promise<number> {
  const now = clock.now()
  const nowIso = now.toISOString()
  const due = await db.kysely
    .selectFrom('job_schedules')
    .selectAll()
    .where('next_run_at', '<=', nowIso)
    .orderBy('next_run_at')
    .execute()
  let advanced = 0
  for (const schedule of due) {
    const slot = schedule.next_run_at
    const slotMs = Date.parse(slot)
    const intervalMs = Number(schedule.interval_seconds) * 1000
    const nextMs = slotMs + intervalMs * (Math.floor((now.getTime() - slotMs) / intervalMs) + 1)
    const payload: ScheduledPayload = { schedule: schedule.name, scheduledFor: slot }
    await enqueueJob(db.kysely, clock, {
      task: schedule.task,
      payload,
      runAt: new Date(slotMs),
      jobKey: `schedule:${schedule.name}:${slot}`,
      jobKeyMode: 'unsafe_dedupe',
    })
    const result = await db.kysely
      .updateTable('job_schedules')
      .set({ next_run_at: new Date(nextMs).toISOString(), last_run_at: nowIso })
      .where('name', '=', schedule.name)
      .where('next_run_at', '=', slot)
      .executeTakeFirst()
    if (result.numUpdatedRows === 1n) advanced++
  }
  return advanced
}
