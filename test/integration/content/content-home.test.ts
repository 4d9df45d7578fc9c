import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createTestApp, type TestApp } from '../../helpers/app.ts'
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts'

/* The first ten minutes (issue 12): `/` on either origin leads somewhere, never a JSON 404. */
let db: TestDatabase
let t: TestApp
before(async () => {
  db = await createTestDatabase('sqlite')
  t = await createTestApp(db)
})
after(async () => {
  await t.close()
  await db.dispose()
})

test('the API origin sends / to the dashboard; the content origin says what it is', async () => {
  const api = await t.app.inject({ url: '/' })
  assert.equal(api.statusCode, 302)
  assert.equal(api.headers.location, '/dashboard/')
  const content = await t.content.inject({ url: '/' })
  assert.equal(content.statusCode, 200)
  assert.match(String(content.headers['content-type']), /^text\/html/)
  assert.match(String(content.headers['content-security-policy']), /^default-src 'none'/)
  assert.match(content.body, /Courseport content origin/)
  assert.match(content.body, /href="http:\/\/127\.0\.0\.1:18080\/dashboard\/"/)
})
