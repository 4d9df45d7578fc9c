import { agentKey, parseAgentParam } from './agent.validator.ts'
import type { StatementFormat } from './statement.format.ts'
import type { IndexEntry } from './statement.indexer.ts'
import type { StatementQuery } from './statement.repository.ts'
import { invalid, isIri, isUuid, parseTimestamp } from './xapi-primitives.ts'

/** Statements per page when `limit` is absent or 0 (the server's maximum). */
export const MAX_STATEMENT_PAGE = 100

const QUERY_PARAMS = [
  'agent',
  'verb',
  'activity',
  'registration',
  'related_activities',
  'related_agents',
  'since',
  'until',
  'limit',
  'format',
  'attachments',
  'ascending',
]
const SINGLE_PARAMS = ['statementId', 'voidedStatementId', 'format', 'attachments']

export type StatementRequest =
  | { kind: 'single'; id: string; voided: boolean; format: StatementFormat; attachments: boolean }
  | {
      kind: 'query'
      query: StatementQuery
      format: StatementFormat
      attachments: boolean
      /** The parameters as given, kept in the `more` token. */
      params: Record<string, string>
    }

function bool(params: Record<string, string>, name: string): boolean {
  const value = params[name]
  if (value === undefined) return false
  if (value !== 'true' && value !== 'false') invalid(name, 'must be true or false')
  return value === 'true'
}

function format(params: Record<string, string>): StatementFormat {
  const value = params.format ?? 'exact'
  if (value !== 'exact' && value !== 'ids' && value !== 'canonical') {
    invalid('format', 'must be exact, ids or canonical')
  }
  return value
}

function timestampParam(params: Record<string, string>, name: string): string | undefined {
  const value = params[name]
  if (value === undefined) return undefined
  const date = parseTimestamp(value, false)
  if (!date) invalid(name, 'must be an ISO 8601 timestamp')
  return date.toISOString()
}

function filters(params: Record<string, string>): IndexEntry[] {
  const out: IndexEntry[] = []
  // The most selective filter first: it drives the index seek.
  if (params.registration !== undefined) {
    if (!isUuid(params.registration)) invalid('registration', 'must be a UUID')
    out.push({ kind: 'registration', value: params.registration.toLowerCase() })
  }
  if (params.activity !== undefined) {
    if (!isIri(params.activity)) invalid('activity', 'must be an IRI')
    const kind = bool(params, 'related_activities') ? 'activity_rel' : 'activity'
    out.push({ kind, value: params.activity })
  }
  if (params.agent !== undefined) {
    const agent = parseAgentParam(params.agent, 'agent')
    const kind = bool(params, 'related_agents') ? 'agent_rel' : 'agent'
    out.push({ kind, value: agentKey(agent) as string })
  }
  if (params.verb !== undefined) {
    if (!isIri(params.verb)) invalid('verb', 'must be an IRI')
    out.push({ kind: 'verb', value: params.verb })
  }
  return out
}

/** Parses the Statement resource's GET parameters (xAPI "StatementResult" and filters). */
export function parseStatementRequest(params: Record<string, string>): StatementRequest {
  if (params.statementId !== undefined || params.voidedStatementId !== undefined) {
    for (const name of Object.keys(params)) {
      if (!SINGLE_PARAMS.includes(name)) invalid(name, 'is not allowed with statementId')
    }
    if (params.statementId !== undefined && params.voidedStatementId !== undefined) {
      invalid('statementId', 'cannot be combined with voidedStatementId')
    }
    const voided = params.voidedStatementId !== undefined
    const id = voided ? params.voidedStatementId : params.statementId
    if (!isUuid(id)) invalid(voided ? 'voidedStatementId' : 'statementId', 'must be a UUID')
    return {
      kind: 'single',
      id,
      voided,
      format: format(params),
      attachments: bool(params, 'attachments'),
    }
  }
  for (const name of Object.keys(params)) {
    if (!QUERY_PARAMS.includes(name)) invalid(name, 'is not a statement query parameter')
  }
  const rawLimit = params.limit ?? '0'
  if (!/^\d+$/.test(rawLimit)) invalid('limit', 'must be a non-negative integer')
  const limit = Number(rawLimit)
  return {
    kind: 'query',
    format: format(params),
    attachments: bool(params, 'attachments'),
    params,
    query: {
      filters: filters(params),
      since: timestampParam(params, 'since'),
      until: timestampParam(params, 'until'),
      ascending: bool(params, 'ascending'),
      limit: limit === 0 || limit > MAX_STATEMENT_PAGE ? MAX_STATEMENT_PAGE : limit,
    },
  }
}

/** The opaque `more` token: the query's parameters and where its page ended. */
export function encodeMore(params: Record<string, string>, after: { stored: string; id: string }) {
  return Buffer.from(JSON.stringify({ p: params, s: after.stored, i: after.id })).toString(
    'base64url',
  )
}

export function decodeMore(token: string): {
  params: Record<string, string>
  after: { stored: string; id: string }
} {
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
      p: Record<string, string>
      s: string
      i: string
    }
    if (typeof v.s === 'string' && typeof v.i === 'string' && v.p && typeof v.p === 'object') {
      return { params: v.p, after: { stored: v.s, id: v.i } }
    }
  } catch {}
  invalid('more', 'is not a link this LRS issued')
}
