/**
 * SQL texts sent to PostgreSQL as named prepared statements (node-postgres's `{ name, text }`):
 * a connection parses and plans each once, then only binds and executes it. For the hottest
 * statements only, and only ones whose result columns never change (no `select *`, no
 * `returning *`): a connection keeps its prepared statement across a migration, and PostgreSQL
 * refuses to run one whose result type has changed. A pooler must keep prepared statements per
 * server connection (PgBouncer in transaction mode needs `max_prepared_statements`).
 */
const names = new Map<string, string>()

/** Marks `sql` to be sent as a named prepared statement (idempotent). */
export function namePostgresStatement(sql: string): void {
  if (!names.has(sql)) names.set(sql, `courseport_${names.size + 1}`)
}

/** The statement name of `sql`, if it was marked. */
export function postgresStatementName(sql: string): string | undefined {
  return names.size === 0 ? undefined : names.get(sql)
}
