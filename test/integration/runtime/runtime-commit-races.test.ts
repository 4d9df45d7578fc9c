import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { launch, startPlayer, uploadGolf } from '../sessions/runtime-helpers.ts'

// Commits racing for one launch, from one server process and from two (as behind a load
// balancer): on PostgreSQL an open launch's commits are written by one statement shared with
// other learners' commits of the moment, and the SCO row's compare-and-set must still let
// exactly one of the racers apply, answer the others as a lost race always has, and lose
// nothing that was acknowledged.
describeEachDatabase('racing runtime commits', (database) => {
  let one: TestApp
  let two: TestApp
  let tenant: TestTenant
  let packageId: string
  before(async () => {
    one = await createTestApp(database())
    two = await createTestApp(database())
    tenant = await one.createTenant('growth')
    packageId = await uploadGolf(one, tenant.testKey, 'singlescobasic.zip')
  })
  after(async () => {
    await one.close()
    await two.close()
  })

  /** A learner's open launch of the course's SCO, and a way to post its commits. */
  async function learner(name: string) {
    const launched = await launch(one, tenant.testKey, packageId, name)
    const player = await startPlayer(one, launched.launch_url)
    const sco = await player.deliver(player.started.current_item_id)
    const token = player.started.runtime_token as string
    const sessionId = launched.session_id
    return {
      sessionId,
      commit(app: TestApp, seq: number, fromSeq: number, values: Record<string, string>) {
        return app.content.inject({
          method: 'POST',
          url: `/runtime/sessions/${sessionId}/commits`,
          headers: { authorization: `Bearer ${token}` },
          payload: { delivery_id: sco.delivery.delivery_id, delta: { seq, fromSeq, values } },
        })
      },
      /** The SCO's record as the API shows it, read on a connection of its own. */
      async stored(): Promise<Record<string, string>> {
        const res = await two.app.inject({
          url: `/api/v1/sessions/${sessionId}`,
          headers: bearer(tenant.testKey),
        })
        assert.equal(res.statusCode, 200, res.body)
        return res.json().cmi_data
      },
      async rowSeq(): Promise<number> {
        const row = await one.ctx.db.kysely
          .selectFrom('sco_states')
          .select('delivery_seq')
          .where('session_id', '=', sessionId)
          .executeTakeFirstOrThrow()
        return Number(row.delivery_seq)
      },
    }
  }

  const page = (who: string, seq: number) => ({
    'cmi.core.lesson_location': `${who}-${seq}`,
    'cmi.suspend_data': `state of ${who} at ${seq}`,
  })

  test('of racing commits of one launch exactly one applies; the others answer as a lost race; nothing acknowledged is lost', async () => {
    const kim = await learner('kim@example.com')
    const first = await kim.commit(one, 1, 0, page('one', 1))
    assert.equal(first.json().applied, true, first.body)
    for (let seq = 2; seq <= 9; seq++) {
      // Two from process one (which remembers the launch, when it applied the last commit) and
      // one from process two, each the same next commit with its own values.
      const racers = [
        { who: 'one', app: one },
        { who: 'two', app: two },
        { who: 'one-again', app: one },
      ]
      const answers = await Promise.all(
        racers.map(async (r) => ({
          ...r,
          res: await kim.commit(r.app, seq, seq - 1, page(r.who, seq)),
        })),
      )
      const winners = answers.filter((a) => a.res.statusCode === 200 && a.res.json().applied)
      assert.equal(winners.length, 1, answers.map((a) => a.res.body).join('\n'))
      for (const lost of answers.filter((a) => a !== winners[0])) {
        // Today's answers to a lost race: the commit is a duplicate of the one applied, or
        // (when the winner committed between the loser's read and its write) a conflict.
        if (lost.res.statusCode === 200) {
          assert.equal(lost.res.json().applied, false, lost.res.body)
          assert.equal(lost.res.json().last_seq, seq, lost.res.body)
        } else {
          assert.equal(lost.res.statusCode, 409, lost.res.body)
          assert.equal(lost.res.json().error.code, 'conflict', lost.res.body)
        }
      }
      const winner = winners[0]?.who as string
      // Acknowledged, so stored: read back at once, on another connection.
      assert.deepEqual(
        Object.entries(await kim.stored()).filter(([k]) => k in page(winner, seq)),
        Object.entries(page(winner, seq)),
      )
      assert.equal(await kim.rowSeq(), seq)
    }
  })

  test('a process whose knowledge of a launch is stale applies nothing on top of it', async () => {
    const lee = await learner('lee@example.com')
    assert.equal((await lee.commit(one, 1, 0, page('one', 1))).json().applied, true)
    // Process two applies commit 2; process one still remembers the launch at 1.
    assert.equal((await lee.commit(two, 2, 1, page('two', 2))).json().applied, true)
    // A resend of commit 2 with other values through process one: a duplicate, not an update.
    const resent = await lee.commit(one, 2, 1, page('one', 2))
    assert.equal(resent.statusCode, 200, resent.body)
    assert.deepEqual(resent.json(), { applied: false, last_seq: 2, errors: [], ignored: [] })
    assert.equal((await lee.stored())['cmi.core.lesson_location'], 'two-2')
    // A delta covering commits 2 and 3 through process one applies on the stored commit 2.
    const covering = await lee.commit(one, 3, 1, page('one', 3))
    assert.equal(covering.json().applied, true, covering.body)
    assert.equal(covering.json().last_seq, 3)
    assert.equal((await lee.stored())['cmi.core.lesson_location'], 'one-3')
    assert.equal(await lee.rowSeq(), 3)
  })

  test("after a lost race the launch's next commit starts from the winner's data", async () => {
    const ann = await learner('ann@example.com')
    assert.equal((await ann.commit(one, 1, 0, page('one', 1))).json().applied, true)
    for (let seq = 2; seq <= 8; seq += 2) {
      // Both racers start from what process one remembers of the launch; one applies.
      const racers = ['first', 'second']
      const answers = await Promise.all(
        racers.map((who) => ann.commit(one, seq, seq - 1, page(who, seq))),
      )
      const won = answers.findIndex((res) => res.statusCode === 200 && res.json().applied)
      assert.notEqual(won, -1, answers.map((res) => res.body).join('\n'))
      const loser = racers[1 - won] as string
      // The loser's values, sent again as the next commit, are a change to store: had what
      // process one remembers taken them from the lost commit, it would skip them as unchanged.
      const next = await ann.commit(one, seq + 1, seq, page(loser, seq))
      assert.equal(next.json().applied, true, next.body)
      assert.deepEqual(
        Object.entries(await ann.stored()).filter(([k]) => k in page(loser, seq)),
        Object.entries(page(loser, seq)),
      )
    }
  })

  test('many learners committing at once: every acknowledged commit is stored', async () => {
    const learners = await Promise.all(
      Array.from({ length: 24 }, (_, i) => learner(`learner-${i}@example.com`)),
    )
    for (let seq = 1; seq <= 3; seq++) {
      await Promise.all(
        learners.map(async (l, i) => {
          const app = i % 2 === 0 ? one : two
          const res = await l.commit(app, seq, seq - 1, page(`l${i}`, seq))
          assert.equal(res.statusCode, 200, res.body)
          assert.equal(res.json().applied, true, res.body)
          assert.equal(res.json().session.completion_status, 'incomplete')
          const stored = await l.stored()
          assert.equal(stored['cmi.core.lesson_location'], `l${i}-${seq}`)
          assert.equal(stored['cmi.suspend_data'], `state of l${i} at ${seq}`)
        }),
      )
    }
  })

  test('a commit the database refuses fails alone; the commits written with it apply', async () => {
    const learners = await Promise.all(
      Array.from({ length: 6 }, (_, i) => learner(`batch-${i}@example.com`)),
    )
    for (const l of learners) {
      assert.equal((await l.commit(one, 1, 0, page('one', 1))).json().applied, true)
    }
    // PostgreSQL stores no NUL character in text; SQLite does.
    const refused = database().dialect === 'postgres'
    const answers = await Promise.all(
      learners.map((l, i) =>
        l.commit(one, 2, 1, i === 2 ? { 'cmi.suspend_data': 'a\u0000b' } : page('one', 2)),
      ),
    )
    for (const [i, res] of answers.entries()) {
      if (i === 2 && refused) {
        assert.ok(res.statusCode >= 500, res.body)
        continue
      }
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().applied, true, res.body)
    }
    // A lone surrogate is stored as U+FFFD, as a text parameter's UTF-8 encoding always stored it.
    const odd = learners[3]
    assert.ok(odd)
    const surrogate = await odd.commit(one, 3, 2, { 'cmi.suspend_data': 'a\ud800b' })
    assert.equal(surrogate.json().applied, true, surrogate.body)
    if (refused) assert.equal((await odd.stored())['cmi.suspend_data'], 'a\ufffdb')
    for (const [i, l] of learners.entries()) {
      if (i === 3) assert.equal(await l.rowSeq(), 3)
      else if (i === 2 && refused) {
        assert.equal((await l.stored())['cmi.suspend_data'], 'state of one at 1')
        assert.equal(await l.rowSeq(), 1)
      } else assert.equal(await l.rowSeq(), 2)
    }
  })
})
