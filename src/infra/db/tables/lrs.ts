import type { Mode } from '../schema.ts'

/** What an LRS credential may do: everything, read everything, or read statements only. */
export type LrsCredentialScope = 'all' | 'all/read' | 'statements/read'

/** An LRS key/secret pair (HTTP Basic on /xapi); the secret is stored only as SHA-256. */
export interface LrsCredentialsTable {
  id: string
  tenant_id: string
  mode: Mode
  /** The Basic user name; not secret. */
  key: string
  secret_hash: string
  label: string
  scope: LrsCredentialScope
  created_at: string
  revoked_at: string | null
  /** Set for a credential issued to one cmi5 / Tin Can launch (modules/cmi5); null otherwise. */
  launch_id: string | null
  /** When a launch credential stops working; null: never. */
  expires_at: string | null
  /**
   * The xAPI version that answers this credential's requests without `X-Experience-API-Version`
   * (they are refused either way; this names the version of the refusal). Migration 0022;
   * default `2.0.0`.
   */
  xapi_version: '1.0.3' | '2.0.0'
}

/** One stored statement; immutable except `voided`. */
export interface LrsStatementsTable {
  tenant_id: string
  mode: Mode
  /** The statement id (lower-case UUID). */
  id: string
  stored: string
  timestamp: string
  verb_id: string
  /** 1 once a voiding statement targets it. */
  voided: number
  /** The id this statement voids, when it is a voiding statement. */
  voids: string | null
  credential_id: string | null
  /** The statement as stored (JSON), with id, stored, authority, version and timestamp. */
  statement: string
}

/** Filterable values of a statement: kind is verb, agent, agent_rel, activity, activity_rel or registration. */
export interface LrsStatementIndexTable {
  tenant_id: string
  mode: Mode
  kind: string
  value: string
  stored: string
  statement_id: string
}

/** Attachment contents by SHA-256 (base64 text, portable across both dialects). */
export interface LrsAttachmentsTable {
  tenant_id: string
  mode: Mode
  sha2: string
  content_type: string
  content: string
  created_at: string
}

/** The canonical definition of an activity, merged from the statements that carried it. */
export interface LrsActivitiesTable {
  tenant_id: string
  mode: Mode
  activity_id: string
  definition: string
  updated_at: string
}

/** A state, activity profile or agent profile document; `''` stands for an absent key part. */
export interface LrsDocumentsTable {
  tenant_id: string
  mode: Mode
  kind: 'state' | 'activity_profile' | 'agent_profile'
  activity_id: string
  agent_key: string
  registration: string
  document_id: string
  content_type: string
  /** base64 of the bytes. */
  content: string
  /** SHA-1 hex of the bytes. */
  etag: string
  updated_at: string
}

/** A named read position of a job that derives statements (jobs/scorm-statements.job.ts). */
export interface LrsCursorsTable {
  name: string
  position: string
  updated_at: string
}

export interface LrsTables {
  lrs_credentials: LrsCredentialsTable
  lrs_statements: LrsStatementsTable
  lrs_statement_index: LrsStatementIndexTable
  lrs_attachments: LrsAttachmentsTable
  lrs_activities: LrsActivitiesTable
  lrs_documents: LrsDocumentsTable
  lrs_cursors: LrsCursorsTable
}
