import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../../context.ts'
import { createTransactionRunner } from '../../infra/db/group-commit.ts'
import { createCmi5Services } from '../../modules/cmi5/index.ts'
import type { LrsCredential } from '../../modules/lrs/credential.service.ts'
import { createLrsServices, type LrsServices } from '../../modules/lrs/index.ts'
import type { LrsLaunchGuard } from '../../modules/lrs/launch-guard.ts'
import type { LrsCaller } from '../../modules/lrs/statement.service.ts'
import type { JsonObject } from '../../modules/lrs/xapi-primitives.ts'
import { AppError } from '../../shared/app-error.ts'
import { isoNow } from '../../shared/clock.ts'
import {
  activitiesHandler,
  agentsHandler,
  documentsHandler,
  isDocumentResource,
} from './documents.handler.ts'
import { boundaryOf, parseMultipartMixed } from './multipart-mixed.ts'
import { statementsHandler } from './statements.handler.ts'
import { readXapiRequest, versionOf, type XapiRequest } from './xapi-request.ts'
import { json, type XapiResponse } from './xapi-response.ts'

/** Largest /xapi request body: statements plus their attachments (20 MiB). */
export const LRS_BODY_LIMIT = 20 * 1024 * 1024

const EXPOSED =
  'ETag, Last-Modified, Content-Type, X-Experience-API-Version, X-Experience-API-Consistent-Through'
const ALLOWED_HEADERS =
  'Authorization, Content-Type, X-Experience-API-Version, If-Match, If-None-Match, Accept-Language'

/**
 * CORS for course content on any origin: Authorization travels as a header and the LRS never
 * reads cookies, so `*` without credentials is all a browser needs.
 */
function cors(request: FastifyRequest, reply: FastifyReply): boolean {
  reply.header('access-control-allow-origin', '*')
  reply.header('access-control-expose-headers', EXPOSED)
  if (request.method !== 'OPTIONS') return false
  reply
    .code(204)
    .header('access-control-allow-methods', 'GET, HEAD, PUT, POST, DELETE, OPTIONS')
    .header('access-control-allow-headers', ALLOWED_HEADERS)
    .header('access-control-max-age', '86400')
    .send()
  return true
}

function basicCredentials(header: string | undefined): { key: string; secret: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '')
  if (!match?.[1]) return null
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return null
  return { key: decoded.slice(0, colon), secret: decoded.slice(colon + 1) }
}

function mayDo(credential: LrsCredential, req: XapiRequest): boolean {
  const reading = req.method === 'GET' || req.method === 'HEAD'
  if (credential.scope === 'all') return true
  if (credential.scope === 'all/read') return reading
  return reading && req.resource === 'statements'
}

async function route(
  lrs: LrsServices,
  caller: LrsCaller,
  req: XapiRequest,
  version: ReturnType<typeof versionOf>,
  now: string,
): Promise<XapiResponse> {
  if (req.resource === 'statements') {
    return statementsHandler(lrs.statements, caller, req, version, now)
  }
  if (isDocumentResource(req.resource)) return documentsHandler(lrs.documents, caller, req, version)
  const reading = req.method === 'GET' || req.method === 'HEAD'
  if (req.resource === 'activities' && reading)
    return activitiesHandler(lrs.statements, caller, req)
  if (req.resource === 'agents' && reading) return agentsHandler(req)
  throw new AppError('not_found', `No xAPI resource ${req.method} /${req.resource}`)
}

/** The JSON of a statement write: the body, or the first part of multipart/mixed; else null. */
function statementJson(req: XapiRequest): Buffer | null {
  if (req.resource !== 'statements' || (req.method !== 'PUT' && req.method !== 'POST')) return null
  const type = req.headers.contentType ?? ''
  if (/^application\/json/i.test(type)) return req.body
  const boundary = /^multipart\/mixed/i.test(type) ? boundaryOf(type) : null
  if (!boundary) return null
  try {
    return parseMultipartMixed(req.body, boundary)[0]?.body ?? null
  } catch {
    return null // malformed: the statements handler answers 400
  }
}

/** The statements a stored statement request carried, for the launch guard. */
function sentStatements(json: Buffer | null): JsonObject[] {
  if (json === null) return []
  const body: unknown = JSON.parse(json.toString('utf8'))
  return (Array.isArray(body) ? body : [body]) as JsonObject[]
}

/** A request made with a launch credential: the guard's rules first, its bookkeeping after. */
async function guarded(
  guard: LrsLaunchGuard,
  credential: LrsCredential,
  req: XapiRequest,
  run: () => Promise<XapiResponse>,
): Promise<XapiResponse> {
  const json = statementJson(req)
  await guard.check(credential, {
    method: req.method,
    resource: req.resource,
    params: req.params,
    contentType: json ? 'application/json' : req.headers.contentType,
    body: json ?? req.body,
  })
  const response = await run()
  const statements = response.status < 300 ? sentStatements(json) : []
  if (statements.length > 0) await guard.stored(credential, statements)
  return response
}

function send(reply: FastifyReply, response: XapiResponse) {
  reply.code(response.status)
  for (const [name, value] of Object.entries(response.headers ?? {})) reply.header(name, value)
  const body = response.body
  if (body === undefined) return reply.send()
  if (Buffer.isBuffer(body) || typeof body === 'string') return reply.send(body)
  return reply.send(JSON.stringify(body))
}

/**
 * The built-in LRS (xAPI 1.0.3 and 2.0) under /xapi on the API origin. Bodies are read raw —
 * JSON, multipart/mixed with attachments, forms of the alternate syntax, and documents of any
 * type — and every answer carries X-Experience-API-Version.
 */
export const lrsRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  // Group commit on SQLite: concurrent statement writes share one COMMIT (infra/db/group-commit).
  // At most 8 requests a COMMIT: a piece is up to a whole batch of statements, and a transaction
  // whose dirty pages outgrow SQLite's page cache spills them to the WAL before it commits.
  const writes = createTransactionRunner(ctx.db, { maxBatch: 8 })
  const lrs = createLrsServices(ctx.db.kysely, ctx.clock, writes)
  // cmi5 and Tin Can launch credentials answer to the course's rules (modules/cmi5).
  const guard = createCmi5Services(ctx.db.kysely, ctx.clock, ctx.config).guard
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: LRS_BODY_LIMIT },
    (_r, body, done) => {
      done(null, body)
    },
  )
  app.addHook('onRequest', async (request, reply) => {
    const raw = request.headers['x-experience-api-version']
    reply.header(
      'x-experience-api-version',
      String(raw ?? '').startsWith('1.0') ? '1.0.3' : '2.0.0',
    )
    if (cors(request, reply)) return reply
    // Every statement answer, errors included, says how current a read would be: writes are
    // committed before they are acknowledged, so that is now.
    if (/^\/xapi\/statements\b/.test(request.url)) {
      reply.header('x-experience-api-consistent-through', isoNow(ctx.clock))
    }
  })

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const req = readXapiRequest(request)
    if (req.resource === 'about') {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        throw new AppError('invalid_request', 'about is read-only')
      }
      return send(reply, json(200, { version: ['1.0.3', '2.0.0'], extensions: {} }))
    }
    const pair = basicCredentials(req.headers.authorization)
    const credential = pair ? await lrs.credentials.authenticate(pair.key, pair.secret) : null
    if (req.headers.version === undefined) {
      // Both versions refuse the request; the credential's version routes it, so the refusal
      // speaks the version its content was made for (docs/lrs.md, "Versions").
      reply.header('x-experience-api-version', credential?.xapiVersion ?? '2.0.0')
    }
    const version = versionOf(req.headers.version)
    reply.header('x-experience-api-version', version)
    if (req.alternate && version === '2.0.0') {
      throw new AppError('validation_failed', 'xAPI 2.0 has no alternate request syntax')
    }
    if (!credential) {
      reply.header('www-authenticate', 'Basic realm="xAPI"')
      throw new AppError('unauthorized', 'Send LRS credentials with HTTP Basic authentication')
    }
    if (!mayDo(credential, req)) {
      throw new AppError('forbidden', `This credential's scope is ${credential.scope}`)
    }
    const caller: LrsCaller = {
      tenantId: credential.tenantId,
      mode: credential.mode,
      credentialId: credential.credentialId,
      authority: {
        objectType: 'Agent',
        name: credential.label,
        account: { homePage: ctx.config.publicUrl, name: credential.key },
      },
    }
    const run = () => route(lrs, caller, req, version, isoNow(ctx.clock))
    if (credential.launchId === null) return send(reply, await run())
    return send(reply, await guarded(guard, credential, req, run))
  }
  app.route({
    method: ['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS'],
    url: '/*',
    schema: { hide: true },
    handler,
  })
}
