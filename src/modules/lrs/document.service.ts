import { createHash } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Database } from '../../infra/db/schema.ts'
import { AppError } from '../../shared/app-error.ts'
import { type Clock, isoNow } from '../../shared/clock.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import * as repo from './document.repository.ts'
import { invalid, isObject, type XapiVersion } from './xapi-primitives.ts'

export type { DocumentKey } from './document.repository.ts'

/** A stored document as the resources return it. */
export interface LrsDocument {
  contentType: string
  content: Buffer
  /** SHA-1 hex of the content, unquoted. */
  etag: string
  updatedAt: string
}

/** The request's If-Match / If-None-Match, unparsed (`*` or a list of quoted ETags). */
export interface Preconditions {
  ifMatch?: string
  ifNoneMatch?: string
}

function sha1(content: Buffer): string {
  return createHash('sha1').update(content).digest('hex')
}

function etagListHas(header: string, etag: string): boolean {
  return header
    .split(',')
    .map((t) => t.trim().replace(/^W\//, '').replace(/^"|"$/g, ''))
    .some((t) => t === '*' || t === etag)
}

function isJsonType(contentType: string): boolean {
  return /^application\/json\b/i.test(contentType)
}

function jsonObject(content: Buffer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(content.toString('utf8'))
    return isObject(value) ? value : null
  } catch {
    return null
  }
}

/**
 * State, activity profile and agent profile documents (xAPI "Document Resources") with SHA-1
 * ETags. Conditional writes: If-Match (412 when it fails), If-None-Match: * (412 when the
 * document exists); a PUT with neither over an existing document is a 409 for profiles, and for
 * state too under xAPI 2.0.
 */
export class DocumentService {
  readonly #db: Kysely<Database>
  readonly #clock: Clock
  constructor(db: Kysely<Database>, clock: Clock) {
    this.#db = db
    this.#clock = clock
  }

  async get(scope: TenantScope, key: repo.DocumentKey, id: string): Promise<LrsDocument | null> {
    const row = await repo.findDocument(this.#db, scope, key, id)
    if (!row) return null
    return {
      contentType: row.content_type,
      content: Buffer.from(row.content, 'base64'),
      etag: row.etag,
      updatedAt: row.updated_at,
    }
  }

  list(scope: TenantScope, key: repo.DocumentKey, since?: string): Promise<string[]> {
    return repo.listDocumentIds(this.#db, scope, key, since)
  }

  async put(
    scope: TenantScope,
    key: repo.DocumentKey,
    id: string,
    body: { contentType: string; content: Buffer },
    pre: Preconditions,
    version: XapiVersion,
  ): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      const current = await repo.findDocument(trx, scope, key, id)
      this.#check(current, pre)
      const guarded = key.kind !== 'state' || version === '2.0.0'
      if (guarded && pre.ifMatch === undefined && pre.ifNoneMatch === undefined) {
        if (current) {
          throw new AppError(
            'conflict',
            'The document exists: send If-Match with its ETag (or If-None-Match: *) to overwrite it',
          )
        }
        // xAPI 1.0.3 requires a precondition on every profile PUT; 2.0 only over an existing one.
        if (version === '1.0.3') {
          invalid('If-Match', 'a profile PUT needs If-Match or If-None-Match')
        }
      }
      await this.#write(trx, scope, key, id, body.contentType, body.content)
    })
  }

  /** Merges JSON objects into an existing JSON document (top-level keys), else stores. */
  async post(
    scope: TenantScope,
    key: repo.DocumentKey,
    id: string,
    body: { contentType: string; content: Buffer },
    pre: Preconditions,
  ): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      const current = await repo.findDocument(trx, scope, key, id)
      this.#check(current, pre)
      const incoming = isJsonType(body.contentType) ? jsonObject(body.content) : null
      if (isJsonType(body.contentType) && !incoming) {
        invalid('document', 'an application/json document must be a JSON object')
      }
      if (!current) {
        await this.#write(trx, scope, key, id, body.contentType, body.content)
        return
      }
      const existing = isJsonType(current.content_type)
        ? jsonObject(Buffer.from(current.content, 'base64'))
        : null
      if (!incoming || !existing) {
        invalid('document', 'POST merges only a JSON object into a JSON object document')
      }
      const merged = Buffer.from(JSON.stringify({ ...existing, ...incoming }))
      await this.#write(trx, scope, key, id, 'application/json', merged)
    })
  }

  async delete(
    scope: TenantScope,
    key: repo.DocumentKey,
    id: string | undefined,
    pre: Preconditions,
  ): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      if (id !== undefined) {
        const current = await repo.findDocument(trx, scope, key, id)
        this.#check(current, pre)
      }
      await repo.deleteDocuments(trx, scope, key, id)
    })
  }

  #check(current: repo.DocumentRow | undefined, pre: Preconditions): void {
    if (pre.ifMatch !== undefined && !(current && etagListHas(pre.ifMatch, current.etag))) {
      throw new AppError('precondition_failed', 'If-Match does not match the current document')
    }
    if (pre.ifNoneMatch !== undefined && current && etagListHas(pre.ifNoneMatch, current.etag)) {
      throw new AppError('precondition_failed', 'If-None-Match: the document exists')
    }
  }

  async #write(
    trx: Parameters<typeof repo.upsertDocument>[0],
    scope: TenantScope,
    key: repo.DocumentKey,
    id: string,
    contentType: string,
    content: Buffer,
  ): Promise<void> {
    await repo.upsertDocument(trx, scope, key, id, {
      content_type: contentType,
      content: content.toString('base64'),
      etag: sha1(content),
      updated_at: isoNow(this.#clock),
    })
  }
}
