import type { Executor } from '../../infra/db/schema.ts'
import type { LrsDocumentsTable } from '../../infra/db/tables/lrs.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

/** Where a document lives: `''` stands for a key part the resource does not use. */
export interface DocumentKey {
  kind: LrsDocumentsTable['kind']
  activityId: string
  agentKey: string
  /** Undefined in a list or delete-all means "any registration". */
  registration?: string
}

export type DocumentRow = Pick<
  LrsDocumentsTable,
  'document_id' | 'content_type' | 'content' | 'etag' | 'updated_at'
>

function scoped(db: Executor, scope: TenantScope, key: DocumentKey) {
  let query = db
    .selectFrom('lrs_documents')
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('kind', '=', key.kind)
    .where('activity_id', '=', key.activityId)
    .where('agent_key', '=', key.agentKey)
  if (key.registration !== undefined) query = query.where('registration', '=', key.registration)
  return query
}

export async function findDocument(
  db: Executor,
  scope: TenantScope,
  key: DocumentKey,
  documentId: string,
): Promise<DocumentRow | undefined> {
  return scoped(db, scope, { ...key, registration: key.registration ?? '' })
    .select(['document_id', 'content_type', 'content', 'etag', 'updated_at'])
    .where('document_id', '=', documentId)
    .executeTakeFirst()
}

export async function listDocumentIds(
  db: Executor,
  scope: TenantScope,
  key: DocumentKey,
  since: string | undefined,
): Promise<string[]> {
  let query = scoped(db, scope, key).select('document_id')
  if (since) query = query.where('updated_at', '>', since)
  const rows = await query.orderBy('updated_at').execute()
  return [...new Set(rows.map((r) => r.document_id))]
}

export async function upsertDocument(
  db: Executor,
  scope: TenantScope,
  key: DocumentKey,
  documentId: string,
  doc: Omit<DocumentRow, 'document_id'>,
): Promise<void> {
  await db
    .insertInto('lrs_documents')
    .values({
      tenant_id: scope.tenantId,
      mode: scope.mode,
      kind: key.kind,
      activity_id: key.activityId,
      agent_key: key.agentKey,
      registration: key.registration ?? '',
      document_id: documentId,
      ...doc,
    })
    .onConflict((oc) =>
      oc
        .columns([
          'tenant_id',
          'mode',
          'kind',
          'activity_id',
          'agent_key',
          'registration',
          'document_id',
        ])
        .doUpdateSet(doc),
    )
    .execute()
}

export async function deleteDocuments(
  db: Executor,
  scope: TenantScope,
  key: DocumentKey,
  documentId: string | undefined,
): Promise<void> {
  let query = db
    .deleteFrom('lrs_documents')
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('kind', '=', key.kind)
    .where('activity_id', '=', key.activityId)
    .where('agent_key', '=', key.agentKey)
  if (documentId !== undefined) {
    query = query
      .where('registration', '=', key.registration ?? '')
      .where('document_id', '=', documentId)
  } else if (key.registration !== undefined) {
    query = query.where('registration', '=', key.registration)
  }
  await query.execute()
}
