import { createHash, randomBytes } from 'node:crypto'
import type { Executor } from '../../infra/db/schema.ts'
import type { DispatchesTable } from '../../infra/db/tables/dispatches.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { admitLearner } from './dispatch.repository.ts'

/**
 * Learner registrations of a dispatch (docs/dispatch.md, "Learner keys"). A launch resumes a
 * learner's sessions only by presenting the key issued to that learner's registration; anything
 * else is a new registration, which is rate-limited per dispatch and, for an LMS learner id that
 * has one already, gets a separate learner id so it never reaches the earlier sessions.
 */

export type Registration =
  | { kind: 'resumed'; learnerId: string }
  | { kind: 'new'; learnerId: string; key: string; newSeat: boolean; separated: boolean }
  | { kind: 'full' }
  | { kind: 'rate_limited' }

/** 32 random bytes: what the wrapper stores in the client LMS. */
function newLearnerKey(): string {
  return randomBytes(32).toString('base64url')
}

function keyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex')
}

/** A learner id that cannot be any registration's yet: `{lms id}~{10 random characters}`. */
function separateLearnerId(lmsLearnerId: string): string {
  return `${lmsLearnerId}~${randomBytes(8).toString('base64url').slice(0, 10)}`
}

async function resume(
  trx: Executor,
  scope: TenantScope,
  dispatch: DispatchesTable,
  key: string,
  lmsLearnerId: string,
  at: string,
): Promise<string | null> {
  const found = await trx
    .selectFrom('dispatch_registrations')
    .select('learner_id')
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('dispatch_id', '=', dispatch.id)
    .where('key_hash', '=', keyHash(key))
    .where('lms_learner_id', '=', lmsLearnerId)
    .executeTakeFirst()
  if (!found) return null
  await trx
    .updateTable('dispatch_registrations')
    .set({ last_launch_at: at })
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('dispatch_id', '=', dispatch.id)
    .where('key_hash', '=', keyHash(key))
    .execute()
  return found.learner_id
}

/**
 * Counts one new registration in the dispatch's current minute, unless `perMinute` are counted
 * already; one conditional UPDATE, so concurrent launches cannot pass the limit together.
 */
async function takeNewLearnerSlot(
  trx: Executor,
  scope: TenantScope,
  dispatchId: string,
  minute: string,
  perMinute: number,
): Promise<boolean> {
  if (perMinute === 0) return true
  const result = await trx
    .updateTable('dispatches')
    .set((eb) => ({
      new_learner_window: minute,
      new_learner_window_count: eb
        .case()
        .when('new_learner_window', '=', minute)
        .then(eb('new_learner_window_count', '+', 1))
        .else(1)
        .end(),
    }))
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', dispatchId)
    .where((eb) =>
      eb.or([
        eb('new_learner_window', 'is', null),
        eb('new_learner_window', '!=', minute),
        eb('new_learner_window_count', '<', perMinute),
      ]),
    )
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/**
 * Resumes the registration `key` proves, or makes a new one: takes a slot of the minute's
 * new-learner limit, then the licence seat of the LMS learner id (a returning id keeps its seat),
 * then issues a key. Run it in a transaction, and roll it back on `full` (the seat row and the
 * slot go with it) — `rate_limited` has written nothing.
 */
export async function register(
  trx: Executor,
  scope: TenantScope,
  dispatch: DispatchesTable,
  input: { lmsLearnerId: string; key: string | undefined; at: string; perMinute: number },
): Promise<Registration> {
  const { lmsLearnerId, at } = input
  if (input.key) {
    const learnerId = await resume(trx, scope, dispatch, input.key, lmsLearnerId, at)
    if (learnerId !== null) {
      await admitLearner(trx, scope, dispatch, lmsLearnerId, at)
      return { kind: 'resumed', learnerId }
    }
  }
  if (!(await takeNewLearnerSlot(trx, scope, dispatch.id, at.slice(0, 16), input.perMinute))) {
    return { kind: 'rate_limited' }
  }
  const seat = await admitLearner(trx, scope, dispatch, lmsLearnerId, at)
  if (seat === 'full') return { kind: 'full' }
  // A seat that existed already means this LMS learner id has launched before: without that
  // registration's key this launch cannot be told from someone else naming the same id.
  const separated = seat === 'returning'
  const learnerId = separated ? separateLearnerId(lmsLearnerId) : lmsLearnerId
  const key = newLearnerKey()
  await trx
    .insertInto('dispatch_registrations')
    .values({
      dispatch_id: dispatch.id,
      key_hash: keyHash(key),
      lms_learner_id: lmsLearnerId,
      learner_id: learnerId,
      tenant_id: scope.tenantId,
      mode: scope.mode,
      created_at: at,
      last_launch_at: at,
    })
    .execute()
  if (separated) {
    await trx
      .updateTable('dispatches')
      .set((eb) => ({ separated_count: eb('separated_count', '+', 1) }))
      .where('tenant_id', '=', scope.tenantId)
      .where('mode', '=', scope.mode)
      .where('id', '=', dispatch.id)
      .execute()
  }
  return { kind: 'new', learnerId, key, newSeat: seat === 'new', separated }
}

/** Raises the wrapper generation: wrapper tokens of earlier generations stop working. */
export async function raiseWrapperGeneration(
  trx: Executor,
  scope: TenantScope,
  dispatchId: string,
  at: string,
): Promise<void> {
  await trx
    .updateTable('dispatches')
    .set((eb) => ({ wrapper_generation: eb('wrapper_generation', '+', 1), updated_at: at }))
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', dispatchId)
    .execute()
}

/** Counts a launch refused by the new-learner rate limit. */
export async function countRateLimited(
  trx: Executor,
  scope: TenantScope,
  dispatchId: string,
): Promise<void> {
  await trx
    .updateTable('dispatches')
    .set((eb) => ({ rate_limited_count: eb('rate_limited_count', '+', 1) }))
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', dispatchId)
    .execute()
}
