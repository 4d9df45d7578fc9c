/** A unique-constraint violation, in either dialect (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT_UNIQUE). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; errcode?: unknown; message?: unknown } | null
  if (!e) return false
  if (e.code === '23505') return true
  if (e.errcode === 2067 || e.errcode === 1555) return true
  return typeof e.message === 'string' && /UNIQUE constraint failed/.test(e.message)
}
