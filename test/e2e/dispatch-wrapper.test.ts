/**
 * Dispatch end to end in Chromium: a page on one loopback origin plays a client LMS whose SCORM
 * API is scorm-again; it loads the wrapper package exported by our API (its files served from
 * that origin), the wrapper opens our frame on the content origin, and the golf course is played
 * to the end by clicking what a learner clicks. Afterwards the LMS's runtime (and what it
 * committed to its server) and our session with the dispatch's id hold the same result.
 * Refusals are checked as the learner sees them inside the wrapper.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Frame, Page } from 'playwright-core'
import type { TestTenant } from '../helpers/app.ts'
import { describeEachDatabase } from '../helpers/database.ts'
import { unzipText } from '../integration/dispatches/dispatch-helpers.ts'
import { type LmsServer, startLms } from './dispatch-lms.helper.ts'
import { isSkip, launchBrowser, type TestBrowser } from './helpers/browser.ts'
import {
  answerAssessment,
  answerDialogs,
  coursePage,
  isoSeconds,
  nextUntil,
  PAGES_12,
  PAGES_2004,
  playerFrame,
  scoFrame,
  timespanSeconds,
} from './helpers/golf-learner.ts'
import { apiClient, type LiveServer, startLiveServer, until } from './helpers/live-server.ts'

const TEST_TIMEOUT = 120_000
const LEARNER = { id: 'acme-0042', name: 'Doe, Jane' }

let browser: TestBrowser | undefined
let skipReason: string | undefined
before(async () => {
  const launched = await launchBrowser({ viewport: { width: 1280, height: 900 } })
  if (isSkip(launched)) skipReason = launched.skip
  else browser = launched
})
after(() => browser?.close())

const GOLF_2004 = 'RuntimeBasicCalls_SCORM20043rdEdition.zip'
const GOLF_12 = 'singlescobasic.zip'

const CASES = [
  { version: '2004', golf: GOLF_2004, pages: PAGES_2004 },
  { version: '1.2', golf: GOLF_12, pages: PAGES_12 },
  // The wrapper's version is the client LMS's choice, not the course's.
  { version: '1.2', golf: GOLF_2004, pages: PAGES_2004 },
] as const

/** The dispatch frame page inside the wrapper (content origin). */
async function dispatchFrame(page: Page): Promise<Frame> {
  return until(
    'the dispatch frame',
    () => page.frames().find((f) => /\/dispatch\/dsp_[^/]+\/frame/.test(f.url())) ?? false,
    15_000,
  )
}

describeEachDatabase(
  'dispatch: a client LMS plays the golf course through the wrapper',
  (database) => {
    let server: LiveServer
    let lms: LmsServer
    let tenant: TestTenant
    before(async () => {
      server = await startLiveServer(database(), { origins: 'tenant' })
      lms = await startLms()
      tenant = await server.t.createTenant('growth')
    })
    after(async () => {
      await lms?.close()
      await server?.close()
    })

    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server.apiUrl}/api/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${tenant.testKey}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      })
      return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) }
    }
    const json = (bytes: Buffer) => JSON.parse(bytes.toString('utf8'))

    async function dispatchFor(golf: string, body: Record<string, unknown> = {}) {
      const packageId = await apiClient(server, tenant).uploadGolf(golf)
      const created = await call('POST', '/dispatches', {
        packageId,
        name: 'Acme Corp',
        licenseLimit: 5,
        allowedDomains: ['localhost'],
        ...body,
      })
      assert.equal(created.status, 201, created.bytes.toString())
      return json(created.bytes) as { id: string; launchUrl: string }
    }

    async function wrapperFiles(dispatchId: string, version: '1.2' | '2004') {
      const res = await call('GET', `/dispatches/${dispatchId}/package?scorm_version=${version}`)
      assert.equal(res.status, 200)
      return unzipText(res.bytes)
    }

    for (const { version, golf, pages } of CASES) {
      test(`SCORM ${version} wrapper, ${golf}: played in the client LMS, completion and score reach both sides`, {
        timeout: TEST_TIMEOUT,
      }, async (t) => {
        if (!browser) return t.skip(skipReason)
        const dispatch = await dispatchFor(golf)
        const files = await wrapperFiles(dispatch.id, version)
        const path = lms.add({ files, version, learner: LEARNER })
        const runId = path.split('/').pop() as string
        const page = await (browser as TestBrowser).context.newPage()
        const dialogs = answerDialogs(page)
        try {
          await page.goto(`${lms.origin('localhost')}${path}`)
          const player = await playerFrame(page, 30_000)
          const sco = scoFrame(player)
          await coursePage(page, pages[0] as string, 20_000)
          await nextUntil(page, sco, pages, 0, pages.length - 1)
          const quiz = await coursePage(page, pages[pages.length - 1] as string)
          const { score } = await answerAssessment(quiz, { wrong: 2 })
          assert.ok(score >= 70, 'a passing score')
          await sco.locator('#butExit').click()

          // The client LMS: values set through its API, committed to its server, session ended.
          const lmsState = await until(
            'the wrapper to finish the LMS session',
            () =>
              page.evaluate((v) => {
                type Cmi = Record<string, Record<string, Record<string, string>>>
                type LmsApi = { isTerminated(): boolean; cmi: Cmi }
                const w = window as unknown as { API: LmsApi; API_1484_11: LmsApi }
                const api = v === '1.2' ? w.API : w.API_1484_11
                if (!api.isTerminated()) return false
                const cmi = api.cmi as unknown as Record<string, unknown>
                const core = (cmi.core ?? {}) as Record<string, unknown>
                const score = ((v === '1.2' ? core.score : cmi.score) ?? {}) as Record<
                  string,
                  unknown
                >
                return v === '1.2'
                  ? { status: core.lesson_status, raw: score.raw }
                  : {
                      completion: cmi.completion_status,
                      success: cmi.success_status,
                      raw: score.raw,
                      scaled: score.scaled,
                    }
              }, version),
            20_000,
          )
          const committed = lms.commits(runId).at(-1) ?? {}
          if (version === '1.2') {
            assert.equal(lmsState.status, 'passed')
            assert.equal(Number(lmsState.raw), score)
            assert.equal(committed['cmi.core.lesson_status'], 'passed')
            assert.equal(Number(committed['cmi.core.score.raw']), score)
            assert.equal(committed['cmi.core.exit'], '')
          } else {
            assert.equal(lmsState.completion, 'completed')
            assert.equal(lmsState.success, 'passed')
            assert.equal(Number(lmsState.raw), score)
            assert.equal(Number(lmsState.scaled), score / 100)
            assert.equal(committed['cmi.completion_status'], 'completed')
            assert.equal(committed['cmi.success_status'], 'passed')
            assert.equal(Number(committed['cmi.score.raw']), score)
            assert.equal(committed['cmi.exit'], 'normal')
          }

          // Our side: the session of the dispatch, for the LMS's learner, holds the same.
          const listed = await call('GET', `/sessions?dispatch_id=${dispatch.id}`)
          const sessions = json(listed.bytes).sessions
          assert.equal(sessions.length, 1)
          const [session] = sessions
          assert.equal(session.dispatch_id, dispatch.id)
          assert.equal(session.learner_id, LEARNER.id)
          assert.equal(session.completion_status, 'completed')
          assert.equal(session.success_status, 'passed')
          assert.equal(session.score.raw, score)
          // Time: what the course reported, on both sides (1.2 LMSs keep whole seconds).
          const lmsTime = String(
            committed[version === '1.2' ? 'cmi.core.session_time' : 'cmi.session_time'],
          )
          const lmsSeconds = version === '1.2' ? timespanSeconds(lmsTime) : isoSeconds(lmsTime)
          assert.ok(lmsSeconds > 0, lmsTime)
          assert.ok(
            Math.abs(lmsSeconds - isoSeconds(session.session_time)) < 1,
            `${lmsTime} vs ${session.session_time}`,
          )
          const detail = json((await call('GET', `/sessions/${session.session_id}`)).bytes)
          assert.equal(detail.learner_name, LEARNER.name)
          const record = json((await call('GET', `/dispatches/${dispatch.id}`)).bytes)
          assert.deepEqual(record.counts, {
            uniqueLearners: 1,
            launches: 1,
            completions: 1,
            refusals: 0,
            separatedLearners: 0,
            rateLimited: 0,
          })
          assert.deepEqual(dialogs.alerts(), [], 'the course reported no SCORM error')
        } finally {
          await page.close()
        }
      })
    }

    test('SCORM 2004 wrapper: leaving mid-course suspends in the LMS, the next launch (with its key) resumes there, one without the key starts apart', {
      timeout: TEST_TIMEOUT,
    }, async (t) => {
      if (!browser) return t.skip(skipReason)
      const dispatch = await dispatchFor(GOLF_2004)
      const files = await wrapperFiles(dispatch.id, '2004')
      const first = lms.add({ files, version: '2004', learner: LEARNER })
      const page = await (browser as TestBrowser).context.newPage()
      const dialogs = answerDialogs(page)
      try {
        await page.goto(`${lms.origin('localhost')}${first}`)
        const sco = scoFrame(await playerFrame(page, 30_000))
        await coursePage(page, PAGES_2004[0] as string, 20_000)
        await nextUntil(page, sco, PAGES_2004, 0, 3)
        await sco.locator('#butExit').click() // "save your progress?" — yes
        await until('the LMS session to end', () =>
          page.evaluate(() =>
            (
              window as unknown as { API_1484_11: { isTerminated(): boolean } }
            ).API_1484_11.isTerminated(),
          ),
        )
        const committed = lms.commits(first.split('/').pop() as string).at(-1) ?? {}
        assert.equal(committed['cmi.exit'], 'suspend')
        assert.equal(committed['cmi.location'], '3')
        assert.equal(committed['cmi.completion_status'], 'incomplete')
        assert.equal(committed['cmi.success_status'], 'unknown')

        // Next day, from the LMS again, which gives the wrapper back its suspend data (with the
        // learner key in it): our server resumes the same attempt at page 3.
        assert.match(String(committed['cmi.suspend_data']), /^cpk1\.[A-Za-z0-9_-]{43}\|/)
        const again = { files, version: '2004', learner: LEARNER } as const
        const firstRun = first.split('/').pop() as string
        await page.goto(`${lms.origin('localhost')}${lms.add({ ...again, resumeFrom: firstRun })}`)
        await playerFrame(page, 30_000)
        await coursePage(page, PAGES_2004[3] as string, 20_000)
        assert.ok(
          dialogs.seen.includes(
            'confirm: Would you like to resume from where you previously left off?',
          ),
          dialogs.seen.join('\n'),
        )
        const sessions = json(
          (await call('GET', `/sessions?dispatch_id=${dispatch.id}`)).bytes,
        ).sessions
        assert.equal(sessions.length, 1, 'the same attempt, resumed')
        const record = json((await call('GET', `/dispatches/${dispatch.id}`)).bytes)
        assert.equal(record.counts.uniqueLearners, 1)
        assert.equal(record.counts.launches, 2)
        assert.equal(record.counts.separatedLearners, 0)

        // A launch for the same LMS learner id without the key (a new LMS attempt, or anyone
        // naming that id) starts apart: a separate learner id, and the suspended attempt stays.
        await page.goto(`${lms.origin('localhost')}${lms.add(again)}`)
        await playerFrame(page, 30_000)
        await coursePage(page, PAGES_2004[0] as string, 20_000)
        const listed = json((await call('GET', `/sessions?dispatch_id=${dispatch.id}`)).bytes)
          .sessions as Array<{ learner_id: string; session_id: string }>
        assert.equal(listed.length, 2)
        const ids = listed.map((s) => s.learner_id).sort()
        assert.equal(ids[0], LEARNER.id)
        assert.match(ids[1] as string, new RegExp(`^${LEARNER.id}~[A-Za-z0-9_-]{10}$`))
        const separated = json((await call('GET', `/dispatches/${dispatch.id}`)).bytes)
        assert.equal(separated.counts.separatedLearners, 1)
        assert.equal(separated.counts.uniqueLearners, 1)
      } finally {
        await page.close()
      }
    })

    test('refused inside the wrapper: a disallowed LMS origin (also with a forged URL parameter), then a paused dispatch', {
      timeout: TEST_TIMEOUT,
    }, async (t) => {
      if (!browser) return t.skip(skipReason)
      const dispatch = await dispatchFor('singlescobasic.zip')
      const files = await wrapperFiles(dispatch.id, '1.2')
      const page = await (browser as TestBrowser).context.newPage()
      try {
        // 127.0.0.1 is not localhost: the browser reports the real origin in the handshake.
        await page.goto(
          `${lms.origin('127.0.0.1')}${lms.add({ files, version: '1.2', learner: LEARNER })}`,
        )
        let frame = await dispatchFrame(page)
        await frame.locator('#cp-title', { hasText: 'This course cannot be opened here' }).waitFor()
        assert.match(
          (await frame.locator('#cp-text').textContent()) ?? '',
          /cannot be opened from this learning platform/,
        )
        assert.equal(
          await page.evaluate(
            () =>
              (window as unknown as { API: { cmi: { core: { lesson_status: string } } } }).API.cmi
                .core.lesson_status,
          ),
          'not attempted',
        )

        // A copied wrapper that names an allowed origin in its URL changes nothing: the origin
        // is only ever taken from the browser's event.origin.
        const forged = new Map(files)
        const allowed = encodeURIComponent(lms.origin('localhost'))
        forged.set(
          'index.html',
          (files.get('index.html') ?? '').replace(
            /("frameUrl":"[^"]+)"/,
            `$1&origin=${allowed}&lms_origin=${allowed}"`,
          ),
        )
        assert.notEqual(forged.get('index.html'), files.get('index.html'))
        await page.goto(
          `${lms.origin('127.0.0.1')}${lms.add({ files: forged, version: '1.2', learner: LEARNER })}`,
        )
        frame = await dispatchFrame(page)
        await frame.locator('#cp-title', { hasText: 'This course cannot be opened here' }).waitFor()

        const paused = await call('POST', `/dispatches/${dispatch.id}/pause`)
        assert.equal(paused.status, 200)
        await page.goto(
          `${lms.origin('localhost')}${lms.add({ files, version: '1.2', learner: LEARNER })}`,
        )
        frame = await dispatchFrame(page)
        await frame.locator('#cp-title', { hasText: 'This course is paused' }).waitFor()

        const refusals = json(
          (await call('GET', `/dispatches/${dispatch.id}/refusals`)).bytes,
        ).refusals
        assert.deepEqual(
          refusals.map((r: { reason: string; origin: string; learnerId: string }) => [
            r.reason,
            r.origin,
            r.learnerId,
          ]),
          [
            ['paused', lms.origin('localhost'), LEARNER.id],
            ['domain_not_allowed', lms.origin('127.0.0.1'), LEARNER.id],
            ['domain_not_allowed', lms.origin('127.0.0.1'), LEARNER.id],
          ],
        )
        const sessions = json(
          (await call('GET', `/sessions?dispatch_id=${dispatch.id}`)).bytes,
        ).sessions
        assert.equal(sessions.length, 0)
      } finally {
        await page.close()
      }
    })
  },
)
