import { createHash } from 'node:crypto'
import type { Kysely } from 'kysely'
import { isUniqueViolation } from '../../infra/db/errors.ts'
import type { TransactionRunner } from '../../infra/db/group-commit.ts'
import type { Database } from '../../infra/db/schema.ts'
import { AppError } from '../../shared/app-error.ts'
import { type Clock, isoNow } from '../../shared/clock.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { normaliseStatement } from './statement.normaliser.ts'
import * as repo from './statement.repository.ts'
import { SIGNATURE_USAGE, validateStatement } from './statement.validator.ts'
import { writeStatements } from './statement-batch.writer.ts'
import { verifyStatementSignature } from './statement-signature.ts'
import {
  canonicalJson,
  comparableDuration,
  invalid,
  isObject,
  type JsonObject,
  type XapiVersion,
} from './xapi-primitives.ts'

/** Who writes: the credential's scope and the authority the LRS records for it. */
export interface LrsCaller extends TenantScope {
  credentialId: string | null
  authority: JsonObject
}

/** One part of a multipart/mixed statement request after its JSON. */
export interface AttachmentPart {
  /** The part's X-Experience-API-Hash. */
  sha2: string
  contentType: string
  content: Buffer
}

const HASH_BY_LENGTH: Record<number, string> = {
  56: 'sha224',
  64: 'sha256',
  96: 'sha384',
  128: 'sha512',
}

function digestMatches(part: AttachmentPart): boolean {
  const algorithm = HASH_BY_LENGTH[part.sha2.length]
  if (!algorithm) return false
  return createHash(algorithm).update(part.content).digest('hex') === part.sha2.toLowerCase()
}

/** Properties that make two statements "the same" for the 409 rule (not the LRS-set ones). */
function comparable(statement: JsonObject, withTimestamp: boolean): string {
  const { id, stored, authority, version, timestamp, ...rest } = statement
  void id
  void stored
  void authority
  void version
  if (isObject(rest.result) && typeof rest.result.duration === 'string') {
    rest.result = { ...rest.result, duration: comparableDuration(rest.result.duration) }
  }
  return canonicalJson(withTimestamp ? { ...rest, timestamp } : rest)
}

function attachmentsOf(statement: JsonObject): JsonObject[] {
  const list = statement.attachments
  const own = Array.isArray(list) ? list.filter(isObject) : []
  const object = statement.object
  if (isObject(object) && object.objectType === 'SubStatement') own.push(...attachmentsOf(object))
  return own
}

/** Checks attachments against the parts sent with them; returns the parts to keep. */
function matchAttachments(statements: JsonObject[], parts: AttachmentPart[]): AttachmentPart[] {
  for (const part of parts) {
    if (!digestMatches(part)) invalid('attachment', `content does not match its hash ${part.sha2}`)
  }
  const bySha = new Map(parts.map((p) => [p.sha2.toLowerCase(), p]))
  const used = new Set<string>()
  for (const statement of statements) {
    for (const a of attachmentsOf(statement)) {
      const sha2 = String(a.sha2).toLowerCase()
      const part = bySha.get(sha2)
      if (!part && !('fileUrl' in a)) invalid('attachments', `no part carries attachment ${sha2}`)
      if (part) used.add(sha2)
      if (a.usageType === SIGNATURE_USAGE) {
        if (a.contentType !== 'application/octet-stream') {
          invalid('signature', 'a signature attachment has contentType application/octet-stream')
        }
        if (!part) invalid('signature', 'the signature attachment must be sent with the statement')
        verifyStatementSignature(statement, part.content.toString('utf8'))
      }
    }
  }
  for (const sha2 of bySha.keys()) {
    if (!used.has(sha2)) invalid('attachment', `part ${sha2} matches no attachment of a statement`)
  }
  return [...bySha.values()]
}

export interface StoreInput {
  statements: unknown[]
  parts: AttachmentPart[]
  version: XapiVersion
  /** The id from `PUT ?statementId=`; the body's id must match it when present. */
  putId?: string
}

export class StatementService {
  readonly #db: Kysely<Database>
  readonly #clock: Clock
  readonly #writes: TransactionRunner
  /** `writes` runs each batch's writes as one transaction (default: its own transaction). */
  constructor(db: Kysely<Database>, clock: Clock, writes?: TransactionRunner) {
    this.#db = db
    this.#clock = clock
    this.#writes = writes ?? { run: (work) => db.transaction().execute(work) }
  }

  /**
   * Stores a batch atomically: one invalid statement, a reused id with other content (409) or a
   * bad attachment stores nothing. Returns the ids in order, re-sent duplicates included.
   */
  async store(caller: LrsCaller, input: StoreInput): Promise<string[]> {
    if (input.statements.length === 0) invalid('statements', 'must not be empty')
    input.statements.forEach((s, i) => {
      validateStatement(
        s,
        input.version,
        input.statements.length > 1 ? `statements[${i}]` : 'statement',
      )
    })
    const statements = input.statements as JsonObject[]
    if (input.putId !== undefined) {
      const bodyId = statements[0]?.id
      if (bodyId !== undefined && String(bodyId).toLowerCase() !== input.putId.toLowerCase()) {
        invalid('statementId', 'differs from the id in the statement')
      }
    }
    const parts = matchAttachments(statements, input.parts)
    const stored = isoNow(this.#clock)
    const prepared = statements.map((s) => this.#prepare(caller, s, stored, input))
    const ids = prepared.map((p) => p.id as string)
    if (new Set(ids).size !== ids.length) invalid('statements', 'a batch repeats a statement id')

    const write = () =>
      this.#writes.run(async (trx) => {
        const existing = new Map(
          (await repo.findStatements(trx, caller, ids)).map((r) => [r.id, r]),
        )
        for (const [i, statement] of prepared.entries()) {
          const found = existing.get(statement.id as string)
          if (!found) continue
          const withTimestamp = 'timestamp' in (statements[i] ?? {})
          const before = JSON.parse(found.statement) as JsonObject
          if (comparable(before, withTimestamp) !== comparable(statement, withTimestamp)) {
            throw new AppError(
              'conflict',
              `Statement ${String(statement.id)} exists with other content`,
            )
          }
        }
        const fresh = prepared.filter((statement) => !existing.has(statement.id as string))
        if (fresh.length > 0) await writeStatements(trx, caller, fresh, stored)
        for (const part of parts) {
          await repo.insertAttachment(trx, caller, {
            sha2: part.sha2.toLowerCase(),
            content_type: part.contentType,
            content: part.content.toString('base64'),
            created_at: stored,
          })
        }
        return ids
      })
    try {
      return await write()
    } catch (err) {
      // A concurrent request stored one of these ids after our read: compare against it now.
      if (!isUniqueViolation(err)) throw err
      return write()
    }
  }

  #prepare(caller: LrsCaller, s: JsonObject, stored: string, input: StoreInput): JsonObject {
    return normaliseStatement(s, {
      id: String(s.id ?? input.putId ?? crypto.randomUUID()),
      stored,
      authority: caller.authority,
      version: input.version === '2.0.0' ? '2.0.0' : '1.0.0',
    })
  }

  /** A statement by id; `voided` chooses between statementId (false) and voidedStatementId. */
  async get(scope: TenantScope, id: string, voided: boolean): Promise<JsonObject | null> {
    const [row] = await repo.findStatements(this.#db, scope, [id.toLowerCase()])
    if (!row || (row.voided === 1) !== voided) return null
    return JSON.parse(row.statement) as JsonObject
  }

  /**
   * One page of a statement query as the stored JSON texts, unparsed: `format=exact` answers
   * them as they are, so a page is not parsed and serialised again.
   */
  async queryStored(
    scope: TenantScope,
    q: repo.StatementQuery,
  ): Promise<{
    texts: string[]
    newest: string | null
    next: { stored: string; id: string } | null
  }> {
    const rows = await repo.queryStatements(this.#db, scope, { ...q, limit: q.limit + 1 })
    const page = rows.slice(0, q.limit)
    const last = page.at(-1)
    return {
      texts: page.map((r) => r.statement),
      newest: page[0]?.stored ?? null,
      next: rows.length > q.limit && last ? { stored: last.stored, id: last.id } : null,
    }
  }

  /** One page of a statement query; `limit + 1` rows are read to know whether more exist. */
  async query(
    scope: TenantScope,
    q: repo.StatementQuery,
  ): Promise<{ statements: JsonObject[]; next: { stored: string; id: string } | null }> {
    const rows = await repo.queryStatements(this.#db, scope, { ...q, limit: q.limit + 1 })
    const page = rows.slice(0, q.limit)
    const last = page.at(-1)
    return {
      statements: page.map((r) => JSON.parse(r.statement) as JsonObject),
      next: rows.length > q.limit && last ? { stored: last.stored, id: last.id } : null,
    }
  }

  /** Attachment contents for the hashes the statements name. */
  async attachments(scope: TenantScope, statements: JsonObject[]) {
    const hashes = new Set<string>()
    for (const s of statements) {
      for (const a of attachmentsOf(s)) hashes.add(String(a.sha2).toLowerCase())
    }
    const rows = await repo.findAttachments(this.#db, scope, [...hashes])
    return rows.map((r) => ({
      sha2: r.sha2,
      contentType: r.content_type,
      content: Buffer.from(r.content, 'base64'),
    }))
  }

  /** The Activities resource: the canonical definition, or just the id when none is known. */
  async activity(scope: TenantScope, activityId: string): Promise<JsonObject> {
    const definition = await repo.findActivity(this.#db, scope, activityId)
    const activity: JsonObject = { objectType: 'Activity', id: activityId }
    if (definition) activity.definition = JSON.parse(definition) as JsonObject
    return activity
  }
}
