/**
 * A worker process killed with SIGKILL in the middle of a conversion (LibreOffice running): the
 * job is taken over once its lease runs out and completes exactly once; if the kill hit its last
 * attempt, the job ends `failed` instead of staying `processing`.
 */
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { createQueue, Worker } from '../../../src/infra/queue/index.ts'
import { conversionLeaseSeconds } from '../../../src/jobs/conversion.job.ts'
import { taskRegistry } from '../../../src/jobs/registry.ts'
import { ManualClock } from '../../../src/shared/clock.ts'
import { bearer, createTestApp, type TestApp } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { officeSkipReason, processesMentioning } from '../../unit/office/office.helper.ts'
import { getConversion, PPTX, postConversion, silentLogger } from './conversion.helper.ts'

const skip = await officeSkipReason()
const CHILD = fileURLToPath(new URL('./conversion-worker.child.ts', import.meta.url))

async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 60_000) {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

function startChild(url: string, dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CHILD, url, dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.stdout?.on('data', (c: Buffer) => {
      if (c.toString().includes('ready')) resolve(child)
    })
  })
}

/** SIGKILLs the worker once LibreOffice is converting this job; cleans up what it left running. */
async function killMidRender(child: ChildProcess, jobId: string): Promise<void> {
  const marker = `courseport-${jobId}`
  await waitFor('LibreOffice to start on the job', () =>
    processesMentioning(marker).some((p) => p.cmd.includes('soffice')),
  )
  assert.equal(process.kill(child.pid as number, 'SIGKILL'), true)
  await new Promise((r) => child.once('exit', r))
  // The orphaned LibreOffice would hit its timeout by itself before the lease runs out; the test
  // moves the clock past the lease at once, so it ends the orphans and waits until they are gone.
  for (const { pid } of processesMentioning(marker)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {}
  }
  await waitFor('the orphaned LibreOffice to end', () => processesMentioning(marker).length === 0)
}

describeEachDatabase('conversion worker crash', (database) => {
  let t: TestApp
  before(async () => {
    t = await createTestApp(database())
  })
  after(() => t.close())

  /** A clock past the lease of a job claimed now: another worker may take it. */
  const afterLease = () =>
    new ManualClock(new Date(Date.now() + (conversionLeaseSeconds(t.ctx.config) + 60) * 1000))

  test('a job whose worker is SIGKILLed mid-render completes once on another worker', {
    skip,
  }, async () => {
    const tenant = await t.createTenant('growth')
    const created = await postConversion(t, tenant.testKey, `${PPTX}oxs_typical.pptx`)
    const id = created.json().job_id
    const child = await startChild(database().url, t.dataDir)
    await killMidRender(child, id)
    assert.equal((await getConversion(t, tenant.testKey, id)).status, 'processing')

    const survivor = new Worker(t.ctx.db, taskRegistry(t.ctx), {
      clock: afterLease(),
      logger: silentLogger,
    })
    assert.equal(await survivor.runOnce(), 1)
    const job = await getConversion(t, tenant.testKey, id)
    assert.equal(job.status, 'completed', job.error)
    assert.equal(job.rendering, 'libreoffice')
    const packages = await t.app.inject({
      url: '/api/v1/packages',
      headers: bearer(tenant.testKey),
    })
    assert.deepEqual(
      packages.json().packages.map((p: { id: string }) => p.id),
      [job.package_id],
      'exactly one package',
    )
    const row = await t.ctx.db.kysely
      .selectFrom('conversions')
      .select('queue_job_id')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    const queued = await createQueue(t.ctx.db).jobs.get(row.queue_job_id)
    assert.equal(queued?.status, 'completed')
    assert.equal(queued?.attempts, 2, 'the killed attempt counts as one')
  })

  test('a crash on the last attempt ends the job failed, not stuck in processing', {
    skip,
  }, async () => {
    const tenant = await t.createTenant() // sandbox: the failed job gives its allowance back
    const created = await postConversion(t, tenant.testKey, `${PPTX}oxs_typical.pptx`)
    const id = created.json().job_id
    // Spend the attempts up front, so the next crash is on the last one.
    await t.ctx.db.kysely
      .updateTable('jobs')
      .set({ max_attempts: 1 })
      .where('job_key', '=', `conversion:${id}`)
      .execute()
    const child = await startChild(database().url, t.dataDir)
    await killMidRender(child, id)

    const survivor = new Worker(t.ctx.db, taskRegistry(t.ctx), {
      clock: afterLease(),
      logger: silentLogger,
    })
    assert.equal(await survivor.runOnce(), 0, 'nothing left to run')
    const job = await getConversion(t, tenant.testKey, id)
    assert.equal(job.status, 'failed', JSON.stringify(job))
    assert.match(job.error, /interrupted .* given up/)
    assert.equal(job.package_id, null)
    assert.equal(
      existsSync(join(tmpdir(), `courseport-${id}`)),
      false,
      'its scratch files are gone',
    )
    for (let i = 0; i < 2; i++) {
      const again = await postConversion(t, tenant.testKey, `${PPTX}poi_table_test.pptx`)
      assert.equal(again.statusCode, 201, 'the failed job did not use the allowance')
    }
    await new Worker(t.ctx.db, taskRegistry(t.ctx), { logger: silentLogger }).runOnce()
  })
})
