import assert from 'node:assert/strict'
import { Agent, request as httpRequest } from 'node:http'
import { after, before, test } from 'node:test'
import fc from 'fast-check'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { multipartFile } from '../../helpers/multipart.ts'
import { buildZip, scorm12Manifest } from '../../helpers/zip-builder.ts'

/**
 * Drives every operation of the generated OpenAPI document with malformed bodies, wrong types,
 * odd headers and hostile paths against the real server: never a 5xx, never a crash, and every
 * refusal is a 4xx with the error body. FUZZ_RUNS (default 20) sets the runs per operation.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 20)
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED)

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; $ref?: string }
interface Operation {
  method: string
  path: string
  parameters: Array<{ in: string; name: string }>
  bodyTypes: string[]
  bodySchema?: Schema
}

function operationsOf(doc: {
  paths: Record<string, Record<string, Record<string, unknown>>>
}): Operation[] {
  const ops: Operation[] = []
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const content = (op.requestBody as { content?: Record<string, { schema?: Schema }> })?.content
      ops.push({
        method: method.toUpperCase(),
        path,
        parameters: (op.parameters as Operation['parameters']) ?? [],
        bodyTypes: Object.keys(content ?? {}),
        bodySchema: content?.['application/json']?.schema,
      })
    }
  }
  return ops
}

const HOSTILE_SEGMENTS = [
  '..',
  '%2e%2e',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '%00',
  '%ZZ',
  '%C0%AE',
  '%F0%9F%98%80',
  encodeURIComponent('<script>alert(1)</script>'),
  encodeURIComponent("' or 1=1 --"),
  'a'.repeat(3000),
  '%25',
  '%5C..%5C',
  '',
]

/** A path segment: hostile constants, a real id, or any string, percent-encoded. */
const segment = (realIds: string[]) =>
  fc.oneof(
    fc.constantFrom(...HOSTILE_SEGMENTS),
    fc.constantFrom(...realIds),
    fc.string({ maxLength: 80 }).map(encodeURIComponent),
    fc.string({ unit: 'binary', maxLength: 40 }).map(encodeURIComponent),
  )

/** A value of the wrong kind for anything. */
const wrongValue = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 20 }),
  fc.string({ minLength: 300, maxLength: 20_000 }),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
)

const MALFORMED_JSON = [
  '',
  '{',
  '{"a":',
  '[1,',
  'nul',
  '"unterminated',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '1e99999',
  '\u0000',
  '{"a":1}garbage',
  `${'['.repeat(5000)}`,
]

/** A body: malformed text, arbitrary JSON, or the operation's own fields with wrong types. */
const body = (op: Operation) => {
  const fields = Object.keys(op.bodySchema?.properties ?? {})
  return fc.oneof(
    fc.constantFrom(...MALFORMED_JSON),
    fc.string({ maxLength: 200 }),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    fields.length
      ? fc
          .dictionary(fc.constantFrom(...fields), wrongValue, { maxKeys: fields.length })
          .map((v) => JSON.stringify(v))
      : fc.constant('{}'),
  )
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary=zz',
  'application/xml',
  '*/*',
  'application/json, text/html',
  ';;;',
]
const headerText = fc
  .string({ maxLength: 300 })
  .map((s) => s.replace(/[^\x20-\x7e]/g, ''))
  .filter((s) => s.length > 0)

const headers = fc.record(
  {
    'content-type': fc.constantFrom(...CONTENT_TYPES),
    accept: fc.oneof(
      fc.constantFrom('text/html', 'text/csv', '*/*', 'application/xml'),
      headerText,
    ),
    'idempotency-key': fc.oneof(headerText, fc.constant('a'.repeat(300))),
    'x-request-id': headerText,
    'content-encoding': fc.constantFrom('gzip', 'br', 'identity'),
    'accept-encoding': fc.constantFrom('gzip', 'br', 'x-nope'),
  },
  { requiredKeys: ['content-type'] },
)

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

export function send(
  port: number,
  agent: Agent,
  method: string,
  path: string,
  head: Record<string, string>,
  payload?: string | Buffer,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path, headers: head, agent },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('error', reject)
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        )
      },
    )
    req.on('error', reject)
    req.end(payload)
  })
}

function assertAnswer(answer: Answer, what: string): void {
  assert.ok(answer.status < 500, `${what} → ${answer.status} ${answer.body.slice(0, 300)}`)
  if (answer.status < 400) return
  const type = String(answer.headers['content-type'] ?? '')
  assert.match(type, /^application\/json/, `${what} → ${answer.status} ${type}`)
  const parsed = JSON.parse(answer.body) as { error?: { code?: unknown; message?: unknown } }
  assert.equal(typeof parsed.error?.code, 'string', `${what} → ${answer.body.slice(0, 300)}`)
  assert.equal(typeof parsed.error?.message, 'string', `${what} → ${answer.body.slice(0, 300)}`)
}

describeEachDatabase('every OpenAPI operation under hostile input', (database) => {
  let t: TestApp
  let tenant: TestTenant
  let port: number
  const agent = new Agent({ keepAlive: true, maxSockets: 4 })
  const realIds: string[] = []
  before(async () => {
    t = await createTestApp(database())
    tenant = await t.createTenant()
    await t.app.listen({ host: '127.0.0.1', port: 0 })
    port = (t.app.server.address() as { port: number }).port
    const zip = buildZip([
      { name: 'imsmanifest.xml', data: scorm12Manifest() },
      { name: 'index.html', data: '<html><body>fuzz</body></html>' },
    ])
    const upload = multipartFile(zip)
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload',
      payload: upload.payload,
      headers: { ...upload.headers, ...bearer(tenant.testKey) },
    })
    assert.equal(res.statusCode, 201, res.body)
    const detail = res.json()
    realIds.push(detail.package.id, detail.package.active_version_id)
  })
  after(async () => {
    agent.destroy()
    await t.close()
  })

  test('no operation answers 5xx or breaks the error shape, and the server stays up', async () => {
    const doc = await send(port, agent, 'GET', '/api/docs/openapi', {})
    assert.equal(doc.status, 200)
    const ops = operationsOf(JSON.parse(doc.body))
    assert.ok(ops.length >= 30, `only ${ops.length} operations`)
    for (const op of ops) {
      const pathParams = op.parameters.filter((p) => p.in === 'path').map((p) => p.name)
      const queryParams = op.parameters.filter((p) => p.in === 'query').map((p) => p.name)
      await fc.assert(
        fc.asyncProperty(
          fc.array(segment(realIds), {
            minLength: pathParams.length,
            maxLength: pathParams.length,
          }),
          fc.dictionary(
            queryParams.length ? fc.constantFrom(...queryParams) : fc.string({ maxLength: 8 }),
            fc.oneof(
              fc.string({ maxLength: 50 }),
              fc.constantFrom('-1', '1e309', 'NaN', '%', '[]'),
            ),
            { maxKeys: 4 },
          ),
          op.method === 'GET' || op.method === 'DELETE' ? fc.constant(undefined) : body(op),
          headers,
          fc.boolean(),
          async (segments, query, payload, head, authenticated) => {
            let path = op.path
            for (const [i, name] of pathParams.entries()) {
              path = path.replace(`{${name}}`, segments[i] ?? '')
            }
            const search = new URLSearchParams(query).toString()
            const url = search ? `${path}?${search}` : path
            const sent: Record<string, string> = { ...head }
            if (authenticated) Object.assign(sent, bearer(tenant.testKey))
            if (payload === undefined) delete sent['content-type']
            const answer = await send(port, agent, op.method, url, sent, payload)
            assertAnswer(answer, `${op.method} ${url.slice(0, 200)} ${head['content-type']}`)
          },
        ),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      )
    }
    const health = await send(port, agent, 'GET', '/healthz', {})
    assert.equal(health.status, 200)
  })
})
