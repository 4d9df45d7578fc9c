import { sql } from 'kysely'
import { type KeysetPosition, newestFirstPage } from '../../infra/db/keyset.ts'
import type { Executor } from '../../infra/db/schema.ts'
import type { ConversionStatus, ConversionsTable } from '../../infra/db/tables/conversions.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

/** Stores a conversion of `scope` (the row's tenant and mode are the scope's). */
export async function insertConversion(
  db: Executor,
  scope: TenantScope,
  row: ConversionsTable,
): Promise<void> {
  await db
    .insertInto('conversions')
    .values({ ...row, tenant_id: scope.tenantId, mode: scope.mode })
    .execute()
}

export async function findConversion(
  db: Executor,
  scope: TenantScope,
  id: string,
): Promise<ConversionsTable | undefined> {
  return db
    .selectFrom('conversions')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .executeTakeFirst()
}

export interface ConversionListFilter {
  limit: number
  status?: ConversionStatus
  /** Keyset position: rows strictly older than this (created_at, id) pair. */
  after?: KeysetPosition
}

/** Newest first; fetches `limit + 1` rows so the caller knows whether a next page exists. */
export async function listConversions(
  db: Executor,
  scope: TenantScope,
  filter: ConversionListFilter,
): Promise<ConversionsTable[]> {
  let query = db
    .selectFrom('conversions')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
  if (filter.status) query = query.where('status', '=', filter.status)
  return newestFirstPage(query, filter.after, filter.limit).execute()
}

export async function countConversions(
  db: Executor,
  scope: TenantScope,
  status?: ConversionStatus,
): Promise<number> {
  let query = db
    .selectFrom('conversions')
    .select((eb) => eb.fn.countAll<string | number | bigint>().as('n'))
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
  if (status) query = query.where('status', '=', status)
  const row = await query.executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * Updates a conversion that is still unfinished; returns false when it already ended, so an
 * ended job is never reopened or ended twice (a late worker, a reconciliation race).
 */
export async function updateUnfinished(
  db: Executor,
  scope: TenantScope,
  id: string,
  values: Partial<Omit<ConversionsTable, 'id' | 'tenant_id' | 'mode'>>,
): Promise<boolean> {
  const result = await db
    .updateTable('conversions')
    .set(values)
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'processing'])
    .executeTakeFirst()
  return result.numUpdatedRows === 1n
}

/**
 * Takes one conversion from the tenant's allowance of `period` if fewer than `limit` were used;
 * false when it is used up. One conditional statement, so concurrent requests cannot overdraw.
 * Allowances are per tenant, not per mode (a conversion costs the same compute in either), so
 * only the scope's tenant filters here.
 */
export async function consumeAllowance(
  db: Executor,
  scope: TenantScope,
  period: string,
  limit: number,
): Promise<boolean> {
  const { tenantId } = scope
  await db
    .insertInto('conversion_allowances')
    .values({ tenant_id: tenantId, period, used: 0 })
    .onConflict((oc) => oc.columns(['tenant_id', 'period']).doNothing())
    .execute()
  const result = await db
    .updateTable('conversion_allowances')
    .set({ used: sql`used + 1` })
    .where('tenant_id', '=', tenantId)
    .where('period', '=', period)
    .where('used', '<', limit)
    .executeTakeFirst()
  return result.numUpdatedRows === 1n
}

/** Gives back a conversion that failed (it produced nothing); per tenant, like the allowance. */
export async function refundAllowance(db: Executor, scope: TenantScope, period: string) {
  await db
    .updateTable('conversion_allowances')
    .set({ used: sql`used - 1` })
    .where('tenant_id', '=', scope.tenantId)
    .where('period', '=', period)
    .where('used', '>', 0)
    .execute()
}

/** Conversions of `period` the scope's tenant used (both modes count); 0 before the first. */
export async function allowanceUsed(
  db: Executor,
  scope: TenantScope,
  period: string,
): Promise<number> {
  const row = await db
    .selectFrom('conversion_allowances')
    .select('used')
    .where('tenant_id', '=', scope.tenantId)
    .where('period', '=', period)
    .executeTakeFirst()
  return row ? Number(row.used) : 0
}

/**
 * The package a conversion already registered, if a crash came between registering it and
 * recording it on the job: the pipeline marks its uploads with `uploaded_by`.
 */
export async function findPackageUploadedBy(
  db: Executor,
  scope: TenantScope,
  uploadedBy: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('package_versions')
    .select('package_id')
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('uploaded_by', '=', uploadedBy)
    .executeTakeFirst()
  return row?.package_id
}
