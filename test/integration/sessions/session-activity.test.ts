import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { type Kysely, sql } from 'kysely'
import { migrateToLatest } from '../../../src/infra/db/database.ts'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { launch, startPlayer, uploadGolf } from './runtime-helpers.ts'

// Whatever writes a session — a launch, a commit (on PostgreSQL, the commits written together in
// one statement), a relaunch — moves it in the list by updated_at at once. On PostgreSQL that
// list seeks `session_activity`, which triggers on `sessions` keep in step (migration 0026); on
// SQLite it seeks the indexes of `sessions` itself.
describeEachDatabase('sessions by updated_at', (database) => {
  let t: TestApp
  let tenant: TestTenant
  let pkg: string
  before(async () => {
    t = await createTestApp(database())
    tenant = await t.createTenant('growth')
    pkg = await uploadGolf(t, tenant.testKey, 'singlesco_scorm12.zip')
  })
  after(() => t.close())

  const byUpdated = async (query = '') => {
    const res = await t.app.inject({
      url: `/api/v1/sessions?package_id=${pkg}&sort=updated_at${query}`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(res.statusCode, 200, res.body)
    return res.json().sessions as Array<{ learner_id: string; updated_at: string }>
  }

  /** Writes a millisecond apart at least, so that their `updated_at` order is theirs. */
  const tick = () => new Promise((resolve) => setTimeout(resolve, 3))

  /** PostgreSQL: sessions whose `session_activity` row is missing or disagrees with them. */
  const outOfStep = async () => {
    if (database().dialect === 'sqlite') return []
    const db = t.ctx.db.kysely as unknown as Kysely<unknown>
    const { rows } = await sql<{ id: string }>`select s.id from sessions s
      left join session_activity a on a.session_id = s.id
      where a.session_id is null or a.updated_at <> s.updated_at or a.tenant_id <> s.tenant_id
        or a.mode <> s.mode or a.package_id <> s.package_id`.execute(db)
    return rows.map((r) => r.id)
  }

  test('a commit moves its session to the top of the list, on every write path', async () => {
    const learners = ['ada', 'bo', 'cy'].map((n) => `${n}@example.com`)
    const players = []
    for (const learner of learners) {
      const launched = await launch(t, tenant.testKey, pkg, learner)
      const player = await startPlayer(t, launched.launch_url)
      const sco = await player.deliver(player.started.current_item_id)
      sco.api.LMSInitialize?.('')
      players.push(sco)
      await tick()
    }
    assert.deepEqual(
      (await byUpdated()).map((s) => s.learner_id),
      [...learners].reverse(),
    )
    // Two commits each, in another order: the second of each is the open launch's commit that
    // PostgreSQL writes in one statement with others, the path that bypasses the transaction.
    for (const i of [0, 2, 1]) {
      for (const page of ['1', '2']) {
        players[i]?.api.LMSSetValue?.('cmi.core.lesson_location', page)
        players[i]?.api.LMSCommit?.('')
        await players[i]?.flush()
      }
      await tick()
    }
    const listed = await byUpdated()
    assert.deepEqual(
      listed.map((s) => s.learner_id),
      [learners[1], learners[2], learners[0]],
    )
    assert.deepEqual(await outOfStep(), [])
    // Oldest first, and a cursor continues from where the page ended.
    const oldest = await byUpdated('&order=asc&limit=2')
    assert.deepEqual(
      oldest.map((s) => s.learner_id),
      [learners[0], learners[2]],
    )
    // A relaunch by the first learner is a write of its session too.
    await tick()
    await launch(t, tenant.testKey, pkg, learners[0] as string)
    assert.equal((await byUpdated())[0]?.learner_id, learners[0])
    assert.deepEqual(await outOfStep(), [])
  })

  test('upgrading to migration 0026 lists every session that existed before', async () => {
    const { db } = database()
    const kysely = db.kysely as unknown as Kysely<unknown>
    if (db.dialect === 'sqlite') {
      const { rows } = await sql<{ name: string }>`select name from sqlite_master
        where name in ('session_activity', 'sessions_scope_updated') order by name`.execute(kysely)
      assert.deepEqual(
        rows.map((r) => r.name),
        ['sessions_scope_updated'],
        'SQLite keeps its indexes on sessions',
      )
      return
    }
    // The schema as migration 0025 left it, with the sessions above in it.
    await sql`drop trigger sessions_activity_insert on sessions`.execute(kysely)
    await sql`drop trigger sessions_activity_update on sessions`.execute(kysely)
    await sql`drop function sessions_activity_insert()`.execute(kysely)
    await sql`drop function sessions_activity_update()`.execute(kysely)
    await sql`drop table session_activity`.execute(kysely)
    await sql`create index sessions_scope_updated on sessions (tenant_id, mode, updated_at, id)`.execute(
      kysely,
    )
    await sql`create index sessions_scope_package_updated
      on sessions (tenant_id, mode, package_id, updated_at, id)`.execute(kysely)
    await sql`delete from kysely_migration where name = '0026-session-activity'`.execute(kysely)

    assert.deepEqual(await migrateToLatest(db), ['0026-session-activity'])
    assert.deepEqual(await outOfStep(), [])
    assert.equal((await byUpdated()).length, 3)
  })
})
