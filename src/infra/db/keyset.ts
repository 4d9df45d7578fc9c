import { type SelectQueryBuilder, type SqlBool, sql } from 'kysely'

/** Where the previous page ended: the (created_at, id) of its last row. */
export interface KeysetPosition {
  createdAt: string
  id: string
}

/** The opaque `cursor` / `next_cursor` of every list endpoint. */
export function encodeCursor(row: { created_at: string; id: string }): string {
  return Buffer.from(JSON.stringify([row.created_at, row.id])).toString('base64url')
}

/** Null when the text is not a cursor this API issued. */
export function decodeCursor(cursor: string): KeysetPosition | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
    if (Array.isArray(value) && typeof value[0] === 'string' && typeof value[1] === 'string') {
      return { createdAt: value[0], id: value[1] }
    }
  } catch {}
  return null
}

/**
 * One page of a newest-first list: rows strictly after `after` in (created_at desc, id desc)
 * order, `limit + 1` of them so the caller can tell whether a next page exists. The query must
 * select from one table that has `created_at` and `id`.
 */
export function newestFirstPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  after: KeysetPosition | undefined,
  limit: number,
): SelectQueryBuilder<DB, TB, O> {
  const paged = after
    ? query.where(
        sql<SqlBool>`(created_at < ${after.createdAt} or (created_at = ${after.createdAt} and id < ${after.id}))`,
      )
    : query
  return paged
    .orderBy(sql`created_at`, 'desc')
    .orderBy(sql`id`, 'desc')
    .limit(limit + 1)
}
