import { acceptedLanguages, formatStatement } from '../../modules/lrs/statement.format.ts'
import type {
  AttachmentPart,
  LrsCaller,
  StatementService,
} from '../../modules/lrs/statement.service.ts'
import { decodeMore, encodeMore, parseStatementRequest } from '../../modules/lrs/statement-query.ts'
import {
  isObject,
  isUuid,
  type JsonObject,
  type XapiVersion,
} from '../../modules/lrs/xapi-primitives.ts'
import { AppError } from '../../shared/app-error.ts'
import { boundaryOf, buildMultipartMixed, parseMultipartMixed } from './multipart-mixed.ts'
import type { XapiRequest } from './xapi-request.ts'
import { httpDate, json, noContent, type XapiResponse } from './xapi-response.ts'

function bad(message: string): never {
  throw new AppError('validation_failed', message)
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'))
  } catch {
    return bad('the body is not valid JSON')
  }
}

/** Statements and attachment parts of a POST/PUT body (application/json or multipart/mixed). */
function readBody(req: XapiRequest): { body: unknown; parts: AttachmentPart[] } {
  const contentType = req.headers.contentType ?? ''
  if (/^application\/json\b/i.test(contentType)) return { body: parseJson(req.body), parts: [] }
  if (!/^multipart\/mixed\b/i.test(contentType)) {
    bad('statements are sent as application/json or multipart/mixed')
  }
  const boundary = boundaryOf(contentType)
  if (!boundary) bad('multipart/mixed needs a boundary')
  const [first, ...rest] = parseMultipartMixed(req.body, boundary)
  if (!first || !/^application\/json\b/i.test(first.headers['content-type'] ?? '')) {
    bad('the first part of multipart/mixed must be the statements as application/json')
  }
  const parts = rest.map((part) => {
    const sha2 = part.headers['x-experience-api-hash']
    if (!sha2) bad('every attachment part needs X-Experience-API-Hash')
    const encoding = part.headers['content-transfer-encoding']
    if (encoding?.toLowerCase() !== 'binary') {
      bad('attachment parts need Content-Transfer-Encoding: binary')
    }
    return {
      sha2,
      contentType: part.headers['content-type'] ?? 'application/octet-stream',
      content: part.body,
    }
  })
  return { body: parseJson(first.body), parts }
}

async function put(
  svc: StatementService,
  caller: LrsCaller,
  req: XapiRequest,
  version: XapiVersion,
) {
  const { statementId, ...others } = req.params
  if (!isUuid(statementId)) bad('PUT statements needs a statementId UUID')
  if (Object.keys(others).length > 0) bad(`unexpected parameter ${Object.keys(others)[0]}`)
  const { body, parts } = readBody(req)
  if (!isObject(body)) bad('PUT takes one statement object')
  await svc.store(caller, { statements: [body], parts, version, putId: statementId })
  return noContent()
}

async function post(
  svc: StatementService,
  caller: LrsCaller,
  req: XapiRequest,
  version: XapiVersion,
) {
  const names = Object.keys(req.params)
  if (names.length > 0) bad(`unexpected parameter ${names[0]}`)
  const { body, parts } = readBody(req)
  const statements = Array.isArray(body) ? body : [body]
  const ids = await svc.store(caller, { statements, parts, version })
  return json(200, ids)
}

async function withAttachments(
  svc: StatementService,
  caller: LrsCaller,
  result: unknown,
  statements: JsonObject[],
  headers: Record<string, string>,
): Promise<XapiResponse> {
  const files = await svc.attachments(caller, statements)
  const multipart = buildMultipartMixed([
    { headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(result)) },
    ...files.map((f) => ({
      headers: {
        'content-type': f.contentType,
        'content-transfer-encoding': 'binary',
        'x-experience-api-hash': f.sha2,
      },
      body: f.content,
    })),
  ])
  return {
    status: 200,
    headers: { ...headers, 'content-type': multipart.contentType },
    body: multipart.body,
  }
}

async function get(
  svc: StatementService,
  caller: LrsCaller,
  req: XapiRequest,
  now: string,
): Promise<XapiResponse> {
  let params = req.params
  let after: { stored: string; id: string } | undefined
  if (params.more !== undefined) {
    const more = decodeMore(params.more)
    params = more.params
    after = more.after
  }
  const parsed = parseStatementRequest(params)
  const languages = acceptedLanguages(req.headers.acceptLanguage)
  const headers: Record<string, string> = { 'x-experience-api-consistent-through': now }
  if (parsed.kind === 'single') {
    const statement = await svc.get(caller, parsed.id, parsed.voided)
    if (!statement) throw new AppError('not_found', `No statement ${parsed.id}`)
    headers['last-modified'] = httpDate(String(statement.stored))
    const formatted = formatStatement(statement, parsed.format, languages)
    if (parsed.attachments) return withAttachments(svc, caller, formatted, [statement], headers)
    return json(200, formatted, headers)
  }
  if (parsed.format === 'exact' && !parsed.attachments) {
    // The stored JSON is the exact format: concatenated, never parsed and serialised again.
    const page = await svc.queryStored(caller, { ...parsed.query, after })
    const more = page.next ? `/xapi/statements?more=${encodeMore(parsed.params, page.next)}` : ''
    headers['last-modified'] = httpDate(page.newest ?? now)
    const body = `{"statements":[${page.texts.join(',')}],"more":${JSON.stringify(more)}}`
    return json(200, body, headers)
  }
  const page = await svc.query(caller, { ...parsed.query, after })
  const result = {
    statements: page.statements.map((s) => formatStatement(s, parsed.format, languages)),
    more: page.next ? `/xapi/statements?more=${encodeMore(parsed.params, page.next)}` : '',
  }
  headers['last-modified'] = httpDate(String(page.statements[0]?.stored ?? now))
  if (parsed.attachments) return withAttachments(svc, caller, result, page.statements, headers)
  return json(200, result, headers)
}

/** The Statement resource: PUT, POST (single, batch, multipart), GET (single, query, more). */
export function statementsHandler(
  svc: StatementService,
  caller: LrsCaller,
  req: XapiRequest,
  version: XapiVersion,
  now: string,
): Promise<XapiResponse> {
  if (req.method === 'PUT') return put(svc, caller, req, version)
  if (req.method === 'POST') return post(svc, caller, req, version)
  if (req.method === 'GET' || req.method === 'HEAD') return get(svc, caller, req, now)
  throw new AppError('invalid_request', `${req.method} is not allowed on statements`)
}
