import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { promisify } from 'node:util'
import { createTestApp, type TestApp } from '../../helpers/app.ts'
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts'

const run = promisify(execFile)

/** Lints with @redocly/cli (recommended rules); returns its problems of severity error. */
async function redoclyErrors(
  document: unknown,
): Promise<Array<{ message: string; ruleId: string }>> {
  const dir = await mkdtemp(join(tmpdir(), 'cp-openapi-'))
  try {
    const file = join(dir, 'openapi.json')
    await writeFile(file, JSON.stringify(document))
    const result = await run(
      'node_modules/.bin/redocly',
      ['lint', file, '--format=json', '--extends=recommended'],
      { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }))
    const report = JSON.parse(result.stdout) as {
      problems: Array<{ severity: string; message: string; ruleId: string }>
    }
    return report.problems.filter((p) => p.severity === 'error')
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

let database: TestDatabase
let t: TestApp
before(async () => {
  database = await createTestDatabase('sqlite')
  t = await createTestApp(database)
})
after(async () => {
  await t.close()
  await database.dispose()
})

test('the full document is OpenAPI 3.1, generated from the routes, and lints clean', async () => {
  const res = await t.app.inject({ url: '/api/docs/openapi' })
  assert.equal(res.statusCode, 200)
  const doc = res.json()
  assert.equal(doc.openapi, '3.1.0')
  const operationIds = Object.values(
    doc.paths as Record<string, Record<string, { operationId?: string }>>,
  ).flatMap((item) => Object.values(item).map((op) => op.operationId))
  for (const id of [
    'listPackages',
    'uploadPackage',
    'createPackageUploadUrl',
    'processPackageUpload',
    'getPackage',
    'activatePackageVersion',
  ]) {
    assert.ok(operationIds.includes(id), `${id} documented`)
  }
  assert.ok(doc.paths['/api/v1/packages/upload'].post.requestBody.content['multipart/form-data'])
  assert.deepEqual(await redoclyErrors(doc), [])
})

test('the GPT Actions subset holds only the spec operations, version 1.0.0, and lints clean', async () => {
  const res = await t.app.inject({ url: '/api/v1/openapi-actions' })
  assert.equal(res.statusCode, 200)
  const doc = res.json()
  assert.equal(doc.openapi, '3.1.0')
  assert.equal(doc.info.version, '1.0.0')
  const operationIds = Object.values(
    doc.paths as Record<string, Record<string, { operationId?: string }>>,
  ).flatMap((item) => Object.values(item).map((op) => op.operationId))
  assert.ok(operationIds.includes('listPackages'))
  const allowed = [
    'createScormCourse',
    'listPackages',
    'launchSession',
    'getSession',
    'listConversions',
    'createConversion',
    'getConversionStatus',
  ]
  for (const id of operationIds)
    assert.ok(allowed.includes(id ?? ''), `${id} is not an Actions operation`)
  assert.deepEqual(await redoclyErrors(doc), [])
})

test('the interactive reference page is served without any external script', async () => {
  const res = await t.app.inject({ url: '/api/docs' })
  const page =
    res.statusCode === 301 || res.statusCode === 302
      ? await t.app.inject({ url: res.headers.location as string })
      : res
  assert.equal(page.statusCode, 200)
  assert.match(page.headers['content-type'] as string, /text\/html/)
  assert.doesNotMatch(page.body, /<script[^>]+src="https?:\/\//)
  const script = await t.app.inject({ url: '/api/docs/js/scalar.js' })
  assert.equal(script.statusCode, 200)
})
