import { sql } from 'kysely'
import type { Executor } from '../../infra/db/schema.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

/** Records the learner as active in `period`; false when they already were. */
export async function insertActiveLearner(
  trx: Executor,
  scope: TenantScope,
  period: string,
  learnerId: string,
  at: string,
): Promise<boolean> {
  const inserted = await trx
    .insertInto('usage_learners')
    .values({
      tenant_id: scope.tenantId,
      mode: scope.mode,
      period,
      learner_id: learnerId,
      first_launch_at: at,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('learner_id')
    .executeTakeFirst()
  return inserted !== undefined
}

/** Adds one to the scope's active learners of `period` and returns the new count. */
export async function countActiveLearner(
  trx: Executor,
  scope: TenantScope,
  period: string,
): Promise<number> {
  const { active_learners } = await trx
    .insertInto('usage_counters')
    .values({ tenant_id: scope.tenantId, mode: scope.mode, period, active_learners: 1 })
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'mode', 'period'])
        .doUpdateSet({ active_learners: sql`usage_counters.active_learners + 1` }),
    )
    .returning('active_learners')
    .executeTakeFirstOrThrow()
  return Number(active_learners)
}
