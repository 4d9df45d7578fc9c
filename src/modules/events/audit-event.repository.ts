import type { Executor } from '../../infra/db/schema.ts'
import { newId } from '../../shared/ids.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

export interface AuditEventInput {
  type: string
  entityType: string | null
  entityId: string | null
  severity?: 'info' | 'warn'
  /** Event-specific fields; the webhook envelope adds the baseline fields. */
  data?: Record<string, unknown>
  occurredAt: string
}

/**
 * Appends to the outbox. Call it with the transaction that makes the state change, so the
 * event exists exactly when the change does (DESIGN §8).
 */
export async function recordAuditEvent(
  trx: Executor,
  scope: TenantScope,
  event: AuditEventInput,
): Promise<string> {
  const id = newId('evt')
  await trx
    .insertInto('audit_events')
    .values({
      id,
      tenant_id: scope.tenantId,
      mode: scope.mode,
      type: event.type,
      entity_type: event.entityType,
      entity_id: event.entityId,
      severity: event.severity ?? 'info',
      data: JSON.stringify(event.data ?? {}),
      occurred_at: event.occurredAt,
      fanned_out_at: null,
    })
    .execute()
  return id
}

export async function listAuditEvents(db: Executor, scope: TenantScope, entityId?: string) {
  let query = db
    .selectFrom('audit_events')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
  if (entityId) query = query.where('entity_id', '=', entityId)
  const rows = await query.orderBy('seq').execute()
  return rows.map((r) => ({ ...r, data: JSON.parse(r.data) as Record<string, unknown> }))
}
