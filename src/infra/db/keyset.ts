import { type SelectQueryBuilder, type SqlBool, sql } from 'kysely'
import { AppError } from '../../shared/app-error.ts'

/**
 * Keyset paging for every list endpoint (DESIGN §12, "Lists seek, never scan"): the one cursor
 * format, the one `{ data, next_cursor }` page, and the one seek predicate.
 */

/** Where the previous page ended: the sort key (by default `created_at`) and id of its last row. */
export interface KeysetPosition {
  key: string
  id: string
}

/** A page of rows and the cursor of the next page (null on the last page). */
export interface Page<T> {
  data: T[]
  next_cursor: string | null
}

/** The opaque `cursor` / `next_cursor` text: base64url of `[sortKey, id]`. */
export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(JSON.stringify([position.key, position.id])).toString('base64url')
}

/** Null when the text is not a cursor this API issued. */
export function decodeCursor(cursor: string): KeysetPosition | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string'
    ) {
      return { key: value[0], id: value[1] }
    }
  } catch {}
  return null
}

/**
 * The position a request's `cursor` names; undefined for the first page.
 * @throws AppError `validation_failed` when the text is not a cursor this API issued.
 */
export function cursorPosition(cursor: string | undefined): KeysetPosition | undefined {
  if (cursor === undefined) return undefined
  const position = decodeCursor(cursor)
  if (!position) throw new AppError('validation_failed', 'cursor is not one this API issued')
  return position
}

/**
 * Cuts the `limit + 1` rows a {@link newestFirstPage} query returned into one page; the extra
 * row only says that a next page exists. `sortKey` reads the row's sort column (default
 * `created_at`).
 */
export function pageOf<R extends { id: string }>(
  rows: readonly R[],
  limit: number,
  sortKey: (row: R) => string = (row) => (row as R & { created_at: string }).created_at,
): Page<R> {
  const data = rows.slice(0, limit)
  const last = data.at(-1)
  return {
    data,
    next_cursor:
      rows.length > limit && last ? encodeCursor({ key: sortKey(last), id: last.id }) : null,
  }
}

/**
 * One page of a newest-first list: rows strictly after `after` in (column desc, id desc) order,
 * `limit + 1` of them so {@link pageOf} can tell whether a next page exists. The query must
 * select from one table that has `column` (default `created_at`) and `id`.
 *
 * The cursor is a row-value comparison, `(created_at, id) < (?, ?)`, which SQLite and
 * PostgreSQL both turn into a range seek on an index `(tenant_id, mode, [filters…], created_at,
 * id)`; the equivalent `a < ? or (a = ? and id < ?)` form makes both planners walk the index
 * from the newest row instead (migration 0017 adds the indexes).
 */
export function newestFirstPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  after: KeysetPosition | undefined,
  limit: number,
  column: 'created_at' | 'updated_at' = 'created_at',
): SelectQueryBuilder<DB, TB, O> {
  const sortColumn = sql.ref(column)
  const paged = after
    ? query.where(sql<SqlBool>`(${sortColumn}, id) < (${after.key}, ${after.id})`)
    : query
  return paged
    .orderBy(sortColumn, 'desc')
    .orderBy(sql`id`, 'desc')
    .limit(limit + 1)
}
