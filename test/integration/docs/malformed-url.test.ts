import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createTestApp, type TestApp } from '../../helpers/app.ts'
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts'

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

test('a malformed URL gets the standard error body on both origins, without echoing the URL', async () => {
  for (const app of [t.app, t.content]) {
    const res = await app.inject({ url: '/c/secret-token/%E0%A4%A/index.html' })
    assert.equal(res.statusCode, 400)
    assert.equal(res.json().error.code, 'invalid_request')
    assert.ok(!res.body.includes('secret-token'))
  }
})
