/**
 * Dispatch launches that prove who they are (docs/dispatch.md, "What a wrapper holder can do"):
 * the wrapper token only works on its tenant's content origin and for the current wrapper
 * generation; a learner's sessions are resumed only with the key their registration was issued;
 * new registrations are rate-limited per dispatch and counted. Tenant origins on, as by default.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { ManualClock } from '../../../src/shared/clock.ts'
import { tenantLabel } from '../../../src/shared/content-origin.ts'
import { createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { uploadGolf } from '../sessions/runtime-helpers.ts'
import {
  api,
  createDispatch,
  type DispatchRecord,
  dispatchEvents,
  frameLaunch,
  LMS_ORIGIN,
  unzipText,
} from './dispatch-helpers.ts'

const CONTENT = 'http://localhost:18081'

describeEachDatabase(
  'dispatch launches: origins, learner keys, rate limit, revocation',
  (database) => {
    const clock = new ManualClock('2026-05-01T08:00:00.000Z')
    let t: TestApp
    let acme: TestTenant
    let other: TestTenant
    let pkg: string
    let otherPkg: string
    before(async () => {
      t = await createTestApp(database(), {
        clock,
        env: {
          CONTENT_URL: CONTENT,
          CONTENT_ORIGINS: 'tenant',
          DISPATCH_NEW_LEARNERS_PER_MINUTE: '4',
        },
      })
      acme = await t.createTenant('growth')
      other = await t.createTenant('growth')
      pkg = await uploadGolf(t, acme.testKey, 'singlescobasic.zip')
      otherPkg = await uploadGolf(t, other.testKey, 'singlescobasic.zip')
    })
    after(() => t.close())

    const refusalOf = (res: { statusCode: number; body: string; json(): unknown }) => {
      assert.equal(res.statusCode, 403, res.body)
      return (res.json() as { error: { details: { reason: string } } }).error.details.reason
    }

    test("a dispatch's wrapper token works only on its own tenant's content origin", async () => {
      const mine = await createDispatch(t, acme.testKey, { packageId: pkg, name: 'Acme' })
      const theirs = await createDispatch(t, other.testKey, { packageId: otherPkg, name: 'Other' })
      const myHost = `${tenantLabel(acme.tenantId)}.localhost:18081`
      const theirHost = `${tenantLabel(other.tenantId)}.localhost:18081`
      assert.equal(new URL(mine.launchUrl).host, myHost)
      assert.equal(new URL(theirs.launchUrl).host, theirHost)

      for (const host of [theirHost, 'localhost:18081', '127.0.0.1:18081', `x${myHost}`]) {
        const res = await frameLaunch(t, mine, { origin: LMS_ORIGIN, learnerId: 'l1', host })
        assert.equal(res.statusCode, 401, `${host}: ${res.body}`)
      }
      const res = await frameLaunch(t, mine, { origin: LMS_ORIGIN, learnerId: 'l1' })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(new URL(res.json().launch_url).host, myHost, 'the player runs there too')
      const record = (await api(t, acme.testKey)('GET', `/dispatches/${mine.id}`)).json()
      assert.equal(record.counts.refusals, 0, 'an unusable token is not a refusal of this dispatch')
    })

    test('naming a registered learner without their key never reaches their session: it gets a separate learner id, and no new seat', async () => {
      const d = await createDispatch(t, acme.testKey, {
        packageId: pkg,
        name: 'Keys',
        licenseLimit: 2,
      })
      const first = await frameLaunch(t, d, { origin: LMS_ORIGIN, learnerId: 'jane' })
      assert.equal(first.statusCode, 200, first.body)
      const jane = first.json()
      assert.equal(jane.learner_id, 'jane')
      assert.match(jane.learner_key, /^[A-Za-z0-9_-]{43}$/)

      const bob = (await frameLaunch(t, d, { origin: LMS_ORIGIN, learnerId: 'bob' })).json()
      const attempts = [
        {}, // no key, as a script holding the wrapper would send
        { learnerKey: 'A'.repeat(43) }, // a guessed key
        { learnerKey: bob.learner_key }, // another learner's key
      ]
      const separate = new Set<string>()
      for (const extra of attempts) {
        clock.advance(60_000) // (each minute admits 4 new registrations)
        const res = await frameLaunch(t, d, { origin: LMS_ORIGIN, learnerId: 'jane', ...extra })
        assert.equal(res.statusCode, 200, res.body)
        const answer = res.json()
        assert.notEqual(answer.session_id, jane.session_id)
        assert.match(answer.learner_id, /^jane~[A-Za-z0-9_-]{10}$/)
        assert.notEqual(answer.learner_key, jane.learner_key)
        separate.add(answer.learner_id)
      }
      assert.equal(separate.size, 3, 'each one a registration of its own')

      // Jane's own wrapper, with her key, resumes her open attempt (the dispatch is full by now).
      const back = await frameLaunch(t, d, {
        origin: LMS_ORIGIN,
        learnerId: 'jane',
        learnerKey: jane.learner_key,
      })
      assert.equal(back.statusCode, 200, back.body)
      assert.equal(back.json().session_id, jane.session_id)
      assert.equal(back.json().learner_id, 'jane')
      assert.equal(back.json().learner_key, null)
      // A key is bound to its LMS learner id: Jane's key does not resume Bob.
      clock.advance(60_000)
      const swapped = await frameLaunch(t, d, {
        origin: LMS_ORIGIN,
        learnerId: 'bob',
        learnerKey: jane.learner_key,
      })
      assert.notEqual(swapped.json().session_id, jane.session_id)

      const record = (
        await api(t, acme.testKey)('GET', `/dispatches/${d.id}`)
      ).json() as DispatchRecord
      assert.equal(record.counts.uniqueLearners, 2, 'separate registrations take no licence seat')
      assert.equal(record.counts.separatedLearners, 4)
      assert.equal(record.counts.launches, 7)
      const events = await dispatchEvents(t, acme.tenantId, d.id)
      const launched = events.filter((e) => e.type === 'dispatch.launched').map((e) => e.data)
      assert.deepEqual(
        launched.map((e) => [e.lms_learner_id, e.new_registration, e.separated]),
        [
          ['jane', true, false],
          ['bob', true, false],
          ['jane', true, true],
          ['jane', true, true],
          ['jane', true, true],
          ['jane', false, false],
          ['bob', true, true],
        ],
      )
    })

    test('new registrations are limited per dispatch and minute; returning learners are not', async () => {
      const d = await createDispatch(t, acme.testKey, { packageId: pkg, name: 'Burst' })
      const keys: string[] = []
      for (let i = 0; i < 4; i++) {
        const res = await frameLaunch(t, d, { origin: LMS_ORIGIN, learnerId: `made-up-${i}` })
        assert.equal(res.statusCode, 200, res.body)
        keys.push(res.json().learner_key)
      }
      assert.equal(
        refusalOf(await frameLaunch(t, d, { origin: LMS_ORIGIN, learnerId: 'made-up-4' })),
        'rate_limited',
      )
      // Nor can an existing id without its key get through in the same minute.
      assert.equal(
        refusalOf(await frameLaunch(t, d, { origin: LMS_ORIGIN, learnerId: 'made-up-0' })),
        'rate_limited',
      )
      const back = await frameLaunch(t, d, {
        origin: LMS_ORIGIN,
        learnerId: 'made-up-0',
        learnerKey: keys[0],
      })
      assert.equal(back.statusCode, 200, 'a returning learner with their key')

      clock.advance(60_000)
      assert.equal(
        (await frameLaunch(t, d, { origin: LMS_ORIGIN, learnerId: 'made-up-4' })).statusCode,
        200,
      )
      const call = api(t, acme.testKey)
      const record = (await call('GET', `/dispatches/${d.id}`)).json() as DispatchRecord
      assert.equal(record.counts.rateLimited, 2)
      assert.equal(record.counts.refusals, 2)
      assert.equal(record.counts.uniqueLearners, 5)
      const refusals = (await call('GET', `/dispatches/${d.id}/refusals`)).json().refusals
      assert.deepEqual(
        refusals.map((r: { reason: string; learnerId: string }) => [r.reason, r.learnerId]),
        [
          ['rate_limited', 'made-up-0'],
          ['rate_limited', 'made-up-4'],
        ],
      )
    })

    test('revoking wrappers: older wrapper tokens are refused, the new export launches and learners keep their sessions', async () => {
      const call = api(t, acme.testKey)
      const d = await createDispatch(t, acme.testKey, { packageId: pkg, name: 'Rotate' })
      assert.equal(d.wrapperGeneration, 0)
      const first = (await frameLaunch(t, d, { origin: LMS_ORIGIN, learnerId: 'kim' })).json()

      const revoked = await call('POST', `/dispatches/${d.id}/revoke-wrappers`)
      assert.equal(revoked.statusCode, 200, revoked.body)
      const fresh = revoked.json() as DispatchRecord
      assert.equal(fresh.wrapperGeneration, 1)
      assert.notEqual(fresh.launchUrl, d.launchUrl)

      const old = await frameLaunch(t, d, {
        origin: LMS_ORIGIN,
        learnerId: 'kim',
        learnerKey: first.learner_key,
      })
      assert.equal(refusalOf(old), 'wrapper_revoked')
      assert.match(old.json().error.message, /replaced/)

      const wrapper = await unzipText(
        (await call('GET', `/dispatches/${d.id}/package?scorm_version=1.2`)).rawPayload,
      )
      const frameUrl = JSON.stringify(fresh.launchUrl).slice(1, -1)
      assert.ok(
        wrapper.get('index.html')?.includes(frameUrl),
        'the new export carries the new link',
      )
      const again = await frameLaunch(t, fresh, {
        origin: LMS_ORIGIN,
        learnerId: 'kim',
        learnerKey: first.learner_key,
      })
      assert.equal(again.statusCode, 200, again.body)
      assert.equal(again.json().session_id, first.session_id)

      const types = (await dispatchEvents(t, acme.tenantId, d.id)).map((e) => e.type)
      assert.ok(types.includes('dispatch.wrappers_revoked'))
      await call('DELETE', `/dispatches/${d.id}`)
      assert.equal((await call('POST', `/dispatches/${d.id}/revoke-wrappers`)).statusCode, 404)
    })
  },
)
