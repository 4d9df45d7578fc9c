/**
 * The attempt's sequencing columns on its session row (migrations 0016, 0021): the tracking
 * state, its compare-and-set position (`sequencing_version`) and the delivery the sequencer
 * launched last. Every function takes the tenant scope and filters by `tenant_id` and `mode`.
 */
import type { Executor } from '../../infra/db/schema.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

/**
 * Writes a tracking state whatever version is stored, moving the version on: the commit path's
 * rollup, which runs under its SCO row's compare-and-set. A navigation that read the state
 * before it then fails its own compare-and-set and runs again on this state.
 */
export async function saveRolledUpState(
  db: Executor,
  scope: TenantScope,
  sessionId: string,
  json: string,
): Promise<void> {
  await db
    .updateTable('sessions')
    .set((eb) => ({
      sequencing_state: json,
      sequencing_version: eb('sequencing_version', '+', 1),
    }))
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', sessionId)
    .execute()
}

/** What a navigation writes: the new state, and the delivery it launched (null: none). */
export interface SequencingWrite {
  json: string
  deliveryId: string | null
}

/**
 * Writes a navigation's state only if the stored version is still `expected` (compare-and-set),
 * moving it to `expected + 1`. False when another writer came first: nothing was written, and
 * the caller runs the request again on what that writer left.
 */
export async function compareAndSetState(
  db: Executor,
  scope: TenantScope,
  sessionId: string,
  expected: number,
  write: SequencingWrite,
): Promise<boolean> {
  const result = await db
    .updateTable('sessions')
    .set({
      sequencing_state: write.json,
      sequencing_version: expected + 1,
      sequencing_delivery_id: write.deliveryId,
    })
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', sessionId)
    .where('sequencing_version', '=', expected)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}
