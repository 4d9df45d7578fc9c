import type { TenantScope } from '../tenants/tenant-scope.ts'
import type { StatementQuery } from './statement.repository.ts'
import type { StatementService } from './statement.service.ts'
import { isObject, type JsonObject } from './xapi-primitives.ts'

/** Columns of the statements CSV, in order. */
export const STATEMENT_CSV_COLUMNS = [
  'id',
  'stored',
  'timestamp',
  'actor',
  'actor_name',
  'verb',
  'verb_display',
  'object_type',
  'object_id',
  'object_name',
  'registration',
  'completion',
  'success',
  'score_scaled',
  'score_raw',
  'score_min',
  'score_max',
  'duration',
] as const

/** Statements read per page while streaming (the export's memory does not grow with its rows). */
const PAGE = 500

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return ''
  const text = String(value)
  // A leading = + - @ is prefixed so spreadsheets never run the cell as a formula.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

/** An agent's or group's identifier as one IRI-like text (mbox, account, openid…). */
function identifier(agent: unknown): string | null {
  if (!isObject(agent)) return null
  if (typeof agent.mbox === 'string') return agent.mbox
  if (typeof agent.mbox_sha1sum === 'string') return `sha1:${agent.mbox_sha1sum}`
  if (typeof agent.openid === 'string') return agent.openid
  const account = agent.account
  if (isObject(account)) return `${String(account.homePage)}#${String(account.name)}`
  return null
}

/** The first value of a language map (en-US preferred). */
function firstLanguage(map: unknown): string | null {
  if (!isObject(map)) return null
  const value = map['en-US'] ?? Object.values(map)[0]
  return typeof value === 'string' ? value : null
}

function field(object: unknown, key: string): unknown {
  return isObject(object) ? object[key] : undefined
}

function csvRow(s: JsonObject): string {
  const object = s.object
  const result = s.result
  const score = field(result, 'score')
  const values: Record<(typeof STATEMENT_CSV_COLUMNS)[number], unknown> = {
    id: s.id,
    stored: s.stored,
    timestamp: s.timestamp,
    actor: identifier(s.actor),
    actor_name: field(s.actor, 'name'),
    verb: field(s.verb, 'id'),
    verb_display: firstLanguage(field(s.verb, 'display')),
    object_type: field(object, 'objectType') ?? 'Activity',
    object_id: field(object, 'id') ?? identifier(object),
    object_name: firstLanguage(field(field(object, 'definition'), 'name')),
    registration: field(s.context, 'registration'),
    completion: field(result, 'completion'),
    success: field(result, 'success'),
    score_scaled: field(score, 'scaled'),
    score_raw: field(score, 'raw'),
    score_min: field(score, 'min'),
    score_max: field(score, 'max'),
    duration: field(result, 'duration'),
  }
  return `${STATEMENT_CSV_COLUMNS.map((c) => csvCell(values[c])).join(',')}\r\n`
}

/**
 * Every statement the query matches as CSV (RFC 4180, CRLF), read a page at a time, in the
 * query's order; `limit` is the page size here, not a cap.
 */
export async function* statementsCsv(
  statements: StatementService,
  scope: TenantScope,
  query: Omit<StatementQuery, 'limit'>,
): AsyncGenerator<string> {
  yield `${STATEMENT_CSV_COLUMNS.join(',')}\r\n`
  let after = query.after
  for (;;) {
    const page = await statements.query(scope, { ...query, after, limit: PAGE })
    if (page.statements.length) yield page.statements.map(csvRow).join('')
    if (!page.next) return
    after = page.next
  }
}
