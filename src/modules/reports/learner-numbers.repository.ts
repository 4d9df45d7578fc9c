import type { Executor } from '../../infra/db/schema.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

/**
 * The learner's dense number in its tenant and mode (`report_learner_ids`, migration 0024), given
 * on its first session: what the rollup's learner sets (learner-set.ts) hold.
 *
 * A new learner takes the counter's next number with one atomic upsert, so two transactions never
 * take the same number; on PostgreSQL the counter row stays locked until the session's
 * transaction commits, which keeps the numbers dense (a rollback gives its number back) at the
 * price of one new learner at a time per tenant, as the usage counter of new active learners
 * already does. Two first sessions of the same learner at once: the second waits on the counter,
 * its insert then finds the first's committed row and it takes that number, leaving one unused
 * (a gap only costs a bit in the report's union).
 */
export async function learnerNumber(
  db: Executor,
  scope: TenantScope,
  learnerId: string,
): Promise<number> {
  const known = await numberOf(db, scope, learnerId)
  if (known !== undefined) return known
  const { next_n } = await db
    .insertInto('report_learner_counters')
    .values({ tenant_id: scope.tenantId, mode: scope.mode, next_n: 1 })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'mode']).doUpdateSet((eb) => ({
        next_n: eb('report_learner_counters.next_n', '+', 1),
      })),
    )
    .returning('next_n')
    .executeTakeFirstOrThrow()
  const n = Number(next_n) - 1
  const inserted = await db
    .insertInto('report_learner_ids')
    .values({ tenant_id: scope.tenantId, mode: scope.mode, learner_id: learnerId, n })
    .onConflict((oc) => oc.columns(['tenant_id', 'mode', 'learner_id']).doNothing())
    .returning('n')
    .executeTakeFirst()
  if (inserted) return n
  const raced = await numberOf(db, scope, learnerId)
  if (raced === undefined) throw new Error(`no report number for learner ${learnerId}`)
  return raced
}

async function numberOf(
  db: Executor,
  scope: TenantScope,
  learnerId: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('report_learner_ids')
    .select('n')
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('learner_id', '=', learnerId)
    .executeTakeFirst()
  return row === undefined ? undefined : Number(row.n)
}
