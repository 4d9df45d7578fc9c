import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, test } from 'node:test'
import type { LiveServer } from '../../e2e/helpers/live-server.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { PPTX } from '../conversions/conversion.helper.ts'
import {
  type DashboardUser,
  request,
  signedInUser,
  startLiveServer,
} from './customer-http.helper.ts'

interface Job {
  job_id: string
  status: string
  slide_count: number
  title: string
}
interface Published {
  package_id: string
  title: string
  slide_count: number
  package_url: string
  launch_url: string
}
type Packages = { packages: Array<{ id: string; title: string }> }

const DECK = readFileSync(`${PPTX}oxs_Ink2.pptx`)
const COURSE = {
  title: 'Fire safety basics',
  slides: [
    { title: 'Welcome', content: 'Why **fire safety** matters' },
    { title: 'Exits', content: '- Know two exits\n- Keep them clear' },
  ],
}

describeEachDatabase('dashboard course creation over HTTP', (db) => {
  let server: LiveServer
  let admin: DashboardUser
  let viewer: DashboardUser
  let outsider: DashboardUser
  let testKey: string

  before(async () => {
    server = await startLiveServer(db())
    const a = await server.t.createTenant('growth')
    const b = await server.t.createTenant('growth')
    testKey = a.testKey
    admin = await signedInUser(server, a.tenantId, 'admin@c.test', 'admin')
    viewer = await signedInUser(server, a.tenantId, 'viewer@c.test', 'viewer')
    outsider = await signedInUser(server, b.tenantId, 'owner@c.test', 'owner')
  })
  after(() => server.close())

  test('quick publish makes a package in the chosen mode only', async () => {
    const made = await admin.call<Published>('POST', '/quick-publish?mode=live', COURSE)
    assert.equal(made.status, 201, JSON.stringify(made.json))
    assert.equal(made.json.slide_count, 2)
    assert.match(made.json.package_url, /\/downloads\//)
    const live = await viewer.call<Packages>('GET', '/packages?mode=live')
    assert.deepEqual(
      live.json.packages.map((p) => [p.id, p.title]),
      [[made.json.package_id, 'Fire safety basics']],
    )
    const inTest = await viewer.call<Packages>('GET', '/packages?mode=test')
    assert.deepEqual(inTest.json.packages, [])
    const theirs = await outsider.call<Packages>('GET', '/packages?mode=live')
    assert.deepEqual(theirs.json.packages, [])
    const zip = await fetch(made.json.package_url)
    assert.equal(zip.status, 200)
  })

  test('a .pptx upload queues a job whose status the page polls; modes and tenants apart', async () => {
    const created = await admin.upload<Job>('/conversions', DECK, 'ink.pptx')
    assert.equal(created.status, 201, JSON.stringify(created.json))
    assert.equal(created.json.status, 'queued')
    assert.equal(created.json.slide_count, 1)
    const id = created.json.job_id

    const polled = await viewer.call<Job>('GET', `/conversions/${id}`)
    assert.equal(polled.status, 200)
    assert.equal(polled.json.job_id, id)
    const listed = await viewer.call<{ jobs: Job[]; total: number }>('GET', '/conversions')
    assert.deepEqual(
      listed.json.jobs.map((j) => j.job_id),
      [id],
    )
    assert.equal((await viewer.call('GET', `/conversions/${id}?mode=live`)).status, 404)
    const live = await viewer.call<{ total: number }>('GET', '/conversions?mode=live')
    assert.equal(live.json.total, 0)
    assert.equal((await outsider.call('GET', `/conversions/${id}`)).status, 404)
    const theirs = await outsider.call<{ total: number }>('GET', '/conversions')
    assert.equal(theirs.json.total, 0)
  })

  test('a file that is not a presentation is refused with 422 before any job exists', async () => {
    const res = await admin.upload('/conversions?mode=live', Buffer.from('not a deck'), 'x.pptx')
    assert.equal(res.status, 422, JSON.stringify(res.json))
    const live = await admin.call<{ total: number }>('GET', '/conversions?mode=live')
    assert.equal(live.json.total, 0)
  })

  test('a viewer cannot publish or convert (403) and nothing is created', async () => {
    const published = await viewer.call('POST', '/quick-publish?mode=test', COURSE)
    assert.equal(published.status, 403)
    const converted = await viewer.upload('/conversions?mode=test', DECK, 'ink.pptx')
    assert.equal(converted.status, 403)
    const pkgs = await viewer.call<Packages>('GET', '/packages?mode=test')
    assert.deepEqual(pkgs.json.packages, [])
    const jobs = await viewer.call<{ total: number }>('GET', '/conversions?mode=test')
    assert.equal(jobs.json.total, 1, 'only the admin’s job')
  })

  test('API keys are refused (401), a missing CSRF token is 403', async () => {
    for (const [method, path] of [
      ['POST', '/api/customer/quick-publish'],
      ['GET', '/api/customer/conversions'],
      ['GET', '/api/customer/conversions/cnv_x'],
    ] as const) {
      const res = await request(server, method, path, {
        headers: { 'x-api-key': testKey },
        ...(method === 'POST' && { body: COURSE }),
      })
      assert.equal(res.status, 401, `${method} ${path}`)
    }
    const noCsrf = await request(server, 'POST', '/api/customer/quick-publish', {
      headers: { cookie: admin.cookie },
      body: COURSE,
    })
    assert.equal(noCsrf.status, 403)
  })
})
