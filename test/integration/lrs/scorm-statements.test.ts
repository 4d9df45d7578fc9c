import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import type { TaskDefinition } from '../../../src/infra/queue/index.ts'
import { taskRegistry } from '../../../src/jobs/registry.ts'
import { SCORM_STATEMENTS_TASK } from '../../../src/jobs/scorm-statements.job.ts'
import { ManualClock } from '../../../src/shared/clock.ts'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { launch, startPlayer, uploadGolf } from '../sessions/runtime-helpers.ts'

interface Statement {
  id: string
  verb: { id: string }
  object: { id: string }
  timestamp: string
  result?: { success?: boolean; completion?: boolean; duration?: string; score?: { raw?: number } }
  context?: { registration?: string }
}

const VERB = 'http://adlnet.gov/expapi/verbs/'

describeEachDatabase(
  'SCORM sessions write xAPI statements (job lrs.scorm_statements)',
  (database) => {
    let t: TestApp
    let tenant: TestTenant
    let pkg: string
    const clock = new ManualClock(new Date())

    before(async () => {
      t = await createTestApp(database(), { clock })
      tenant = await t.createTenant()
      pkg = await uploadGolf(t, tenant.testKey, 'singlescobasic.zip')
    })
    after(async () => {
      await t.close()
    })

    /** Runs the registered job as a worker would, once everything recorded has settled. */
    async function runJob() {
      clock.advance(60_000)
      const task = taskRegistry(t.ctx)[SCORM_STATEMENTS_TASK] as TaskDefinition
      await task.handler(
        {},
        {
          jobId: 'job_test',
          attempt: 1,
          maxAttempts: 1,
          signal: new AbortController().signal,
          clock,
        },
      )
    }

    async function statementsOf(learnerId: string, key = tenant.testKey): Promise<Statement[]> {
      const agent = JSON.stringify({
        account: { homePage: t.ctx.config.publicUrl, name: learnerId },
      })
      const res = await t.app.inject({
        url: `/api/v1/xapi/statements?limit=100&agent=${encodeURIComponent(agent)}`,
        headers: bearer(key),
      })
      assert.equal(res.statusCode, 200, res.body)
      return (res.json() as { statements: Statement[] }).statements
    }

    async function playPassed(userId: string) {
      const launched = await launch(t, tenant.testKey, pkg, userId)
      const player = await startPlayer(t, launched.launch_url)
      const sco = await player.deliver(player.started.current_item_id)
      sco.api.LMSInitialize?.('')
      sco.api.LMSSetValue?.('cmi.core.score.raw', '85')
      sco.api.LMSSetValue?.('cmi.core.lesson_status', 'passed')
      sco.api.LMSFinish?.('')
      await sco.flush()
      return { ...launched, itemId: player.started.current_item_id as string }
    }

    it('derives launched … terminated, completed and passed, exactly once across runs', async () => {
      const { learner_id, session_id, itemId } = await playPassed('scorm-xapi@example.com')
      await runJob()
      await runJob()
      const statements = await statementsOf(learner_id)
      const verbs = statements.map((s) => s.verb.id.replace(VERB, '')).sort()
      assert.deepEqual(verbs, ['completed', 'initialized', 'launched', 'passed', 'terminated'])
      assert.equal(new Set(statements.map((s) => s.id)).size, statements.length)
      const passed = statements.find((s) => s.verb.id === `${VERB}passed`)
      assert.equal(passed?.result?.success, true)
      assert.equal(passed?.result?.score?.raw, 85)
      const terminated = statements.find((s) => s.verb.id === `${VERB}terminated`)
      assert.match(terminated?.result?.duration ?? '', /^PT/)
      assert.ok(terminated?.object.id.endsWith(`/scorm/${pkg}/${encodeURIComponent(itemId)}`))
      assert.equal(new Set(statements.map((s) => s.context?.registration)).size, 1)
      assert.ok(session_id)

      const byActivity = await t.app.inject({
        url: `/api/v1/xapi/statements?activity=${encodeURIComponent(`${t.ctx.config.publicUrl}/xapi/activities/scorm/${pkg}`)}`,
        headers: bearer(tenant.testKey),
      })
      const courseVerbs = (byActivity.json() as { statements: Statement[] }).statements.map((s) =>
        s.verb.id.replace(VERB, ''),
      )
      assert.deepEqual(courseVerbs.sort(), ['completed', 'passed'])
      assert.equal((await statementsOf(learner_id, tenant.liveKey)).length, 0)
    })

    it('writes suspended, then resumed on the next launch of the attempt', async () => {
      const launched = await launch(t, tenant.testKey, pkg, 'suspender@example.com')
      const player = await startPlayer(t, launched.launch_url)
      const sco = await player.deliver(player.started.current_item_id)
      sco.api.LMSInitialize?.('')
      sco.api.LMSSetValue?.('cmi.core.exit', 'suspend')
      sco.api.LMSFinish?.('')
      await sco.flush()
      const again = await launch(t, tenant.testKey, pkg, 'suspender@example.com')
      const player2 = await startPlayer(t, again.launch_url)
      const sco2 = await player2.deliver(player2.started.current_item_id)
      sco2.api.LMSInitialize?.('')
      await sco2.flush()
      await runJob()
      const verbs = (await statementsOf(launched.learner_id)).map((s) =>
        s.verb.id.replace(VERB, ''),
      )
      assert.equal(verbs.filter((v) => v === 'launched').length, 2)
      assert.ok(verbs.includes('suspended'), verbs.join())
      assert.ok(verbs.includes('resumed'), verbs.join())
    })

    it('lists statements as CSV, and the sessions CSV has the statement summary columns', async () => {
      const csv = await t.app.inject({
        url: '/api/v1/xapi/statements?format=csv',
        headers: bearer(tenant.testKey),
      })
      assert.equal(csv.statusCode, 200)
      assert.match(csv.headers['content-type'] ?? '', /^text\/csv/)
      const lines = csv.body.trimEnd().split('\r\n')
      assert.ok(lines[0]?.startsWith('id,stored,timestamp,actor,'))
      assert.ok(lines.length > 5)
      assert.ok(lines.some((l) => l.includes(`${VERB}passed`)))
      const accepted = await t.app.inject({
        url: `/api/v1/xapi/statements?verb=${encodeURIComponent(`${VERB}passed`)}`,
        headers: { ...bearer(tenant.testKey), accept: 'text/csv' },
      })
      assert.equal(accepted.body.trimEnd().split('\r\n').length, 2)

      const sessions = await t.app.inject({
        url: '/api/v1/sessions?format=csv',
        headers: bearer(tenant.testKey),
      })
      const header = sessions.body.split('\r\n')[0] ?? ''
      assert.ok(
        header.endsWith(
          ',xapi_registration,xapi_statement_count,xapi_first_statement_at,xapi_last_statement_at,xapi_last_verb',
        ),
        header,
      )
    })

    it('writes nothing for a tenant that turned SCORM statements off', async () => {
      await t.ctx.services.tenants.updateSettings(tenant.tenantId, { scormStatements: false })
      const { learner_id } = await playPassed('quiet@example.com')
      await runJob()
      assert.equal((await statementsOf(learner_id)).length, 0)
      await t.ctx.services.tenants.updateSettings(tenant.tenantId, { scormStatements: true })
    })
  },
)
