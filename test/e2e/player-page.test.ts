/**
 * The real launch page and player bundle in headless Chromium, with fake SCOs that find the API
 * the standard way from a frame nested inside the player's frame.
 *
 * The runtime endpoints and the content files here are a STUB written for this test: it stands
 * in for the server side (sessions, deliveries, commits, /c/ content), which was being written
 * separately when this test was. It answers as docs/runtime-protocol.md describes and records
 * what the player sends. Full end-to-end tests against the real server come separately.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import { playerRoutes } from '../../src/http/player/index.ts'
import { type Delta, deltaPosition } from '../../src/modules/scorm/data-model/index.ts'
import { isSkip, launchBrowser, type TestBrowser } from './helpers/browser.ts'

interface Recorded {
  path: string
  contentType: string
  authorization: string | undefined
  body: Record<string, unknown>
}

const LAUNCH_TOKEN = 'launch-tok'
const RUNTIME_TOKEN = 'runtime-tok'

/** Finds the API by walking parents, then the opener's parents; reports how far it went. */
const DISCOVERY = `
function findApi(name) {
  var win = window, hops = 0
  while (win && !win[name] && win.parent && win.parent !== win && hops < 10) { win = win.parent; hops++ }
  if (win && win[name]) return { api: win[name], hops: hops }
  if (window.opener) return { api: window.opener[name] || null, hops: -1 }
  return { api: null, hops: hops }
}`

const SCO_SCRIPTS: Record<string, string> = {
  // SCORM 2004: reads, writes, commits, asks whether continue is valid, then requests it.
  lesson1: `${DISCOVERY}
var found = findApi('API_1484_11'), api = found.api
api.Initialize('')
api.SetValue('cmi.location', 'hops=' + found.hops + ';learner=' + api.GetValue('cmi.learner_name'))
api.Commit('')
api.SetValue('cmi.suspend_data', 'continue-valid=' + api.GetValue('adl.nav.request_valid.continue'))
api.SetValue('cmi.completion_status', 'completed')
api.SetValue('adl.nav.request', 'continue')
document.getElementById('out').textContent = 'lesson 1 done'
api.Terminate('')`,
  // SCORM 2004: suspends the whole course.
  lesson2: `${DISCOVERY}
var api = findApi('API_1484_11').api
api.Initialize('')
api.SetValue('cmi.exit', 'suspend')
api.SetValue('adl.nav.request', 'suspendAll')
api.Terminate('')`,
  // SCORM 2004: finishes without a navigation request.
  plain: `${DISCOVERY}
var api = findApi('API_1484_11').api
api.Initialize('')
api.SetValue('cmi.completion_status', 'completed')
api.Terminate('')`,
  // SCORM 1.2: sets a value and never commits or finishes (the learner just closes the tab).
  sco12: `${DISCOVERY}
var found = findApi('API')
found.api.LMSInitialize('')
found.api.LMSSetValue('cmi.core.lesson_location', 'p7;hops=' + found.hops)
document.getElementById('out').textContent = 'ready'`,
}

const COURSES: Record<string, { version: '1.2' | '2004'; items: unknown[] }> = {
  ses_2004: {
    version: '2004',
    items: [
      { id: 'm1', title: 'Module 1', kind: 'heading', level: 0, href: null, launchable: false },
      {
        id: 'item_1',
        title: 'Lesson 1',
        kind: 'sco',
        level: 1,
        href: 'lesson1/outer.html',
        launchable: true,
      },
      {
        id: 'item_2',
        title: 'Lesson 2',
        kind: 'sco',
        level: 1,
        href: 'lesson2/outer.html',
        launchable: true,
      },
    ],
  },
  ses_stay: {
    version: '2004',
    items: [
      {
        id: 's1',
        title: 'First',
        kind: 'sco',
        level: 0,
        href: 'plain/outer.html',
        launchable: true,
      },
      {
        id: 's2',
        title: 'Second',
        kind: 'sco',
        level: 0,
        href: 'lesson2/outer.html',
        launchable: true,
      },
    ],
  },
  ses_phone: {
    version: '1.2',
    items: [
      {
        id: 'p1',
        title: 'Part 1',
        kind: 'sco',
        level: 0,
        href: 'sco12/outer.html',
        launchable: true,
      },
      {
        id: 'p2',
        title: 'Part 2',
        kind: 'sco',
        level: 0,
        href: 'sco12/outer.html',
        launchable: true,
      },
    ],
  },
  ses_12: {
    version: '1.2',
    items: [
      {
        id: 'only',
        title: 'The lesson',
        kind: 'sco',
        level: 0,
        href: 'sco12/outer.html',
        launchable: true,
      },
    ],
  },
}

let server: FastifyInstance
let origin: string
let browser: TestBrowser | undefined
let skipReason: string | undefined
const dir = mkdtempSync(join(tmpdir(), 'cp-e2e-player-'))
const recorded: Recorded[] = []
const lastSeq = new Map<string, number>()
const stored = new Map<string, Record<string, string>>()
const ended = new Set<string>()
let deliveryCount = 0

function stubServer(app: FastifyInstance) {
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, JSON.parse(String(body)))
    } catch (err) {
      done(err as Error, undefined)
    }
  })
  const record = (path: string, request: { headers: Record<string, unknown>; body: unknown }) => {
    const entry: Recorded = {
      path,
      contentType: String(request.headers['content-type'] ?? ''),
      authorization: request.headers.authorization as string | undefined,
      body: request.body as Record<string, unknown>,
    }
    recorded.push(entry)
    return entry
  }
  const authorized = (entry: Recorded) =>
    entry.authorization === `Bearer ${RUNTIME_TOKEN}` || entry.body.token === RUNTIME_TOKEN

  app.post<{ Params: { sid: string } }>('/runtime/sessions/:sid/start', async (request, reply) => {
    const entry = record('start', request)
    const course = COURSES[request.params.sid]
    if (!course || entry.body.token !== LAUNCH_TOKEN) {
      return reply.status(401).send({ error: { code: 'unauthorized', message: 'bad token' } })
    }
    return {
      session_id: request.params.sid,
      attempt_id: 'att_1',
      runtime_token: RUNTIME_TOKEN,
      title: `Course ${request.params.sid}`,
      content_type: 'scorm',
      scorm_version: course.version,
      content_base: '/c/content-tok/',
      items: course.items,
      navigation: { flow: true, choice: true },
      current_item_id: null,
      data_model_options: { suspendDataLimit12: 4096 },
    }
  })
  app.post<{ Params: { sid: string } }>(
    '/runtime/sessions/:sid/deliveries',
    async (request, reply) => {
      const entry = record('deliveries', request)
      const course = COURSES[request.params.sid]
      const item = course?.items.find((i) => (i as { id: string }).id === entry.body.item_id) as
        | { id: string; href: string }
        | undefined
      if (!course || !authorized(entry))
        return reply.status(401).send({ error: { code: 'unauthorized' } })
      if (!item) return reply.status(404).send({ error: { code: 'not_found' } })
      deliveryCount++
      return {
        delivery_id: `scd_${deliveryCount}`,
        item_id: item.id,
        scorm_version: course.version,
        href: item.href,
        launch_data: { learnerId: 'l-1', learnerName: 'Doe, Jane' },
      }
    },
  )
  app.post('/runtime/sessions/:sid/commits', async (request, reply) => {
    const entry = record('commits', request)
    if (!authorized(entry)) return reply.status(401).send({ error: { code: 'unauthorized' } })
    const id = String(entry.body.delivery_id)
    const delta = entry.body.delta as Delta
    const last = lastSeq.get(id) ?? 0
    const position = deltaPosition(last, delta)
    if (position === 'duplicate') return { applied: false, last_seq: last }
    if (position === 'gap') {
      return reply
        .status(409)
        .send({ error: { code: 'sequence_gap', message: 'gap', details: { last_seq: last } } })
    }
    lastSeq.set(id, delta.seq)
    stored.set(id, { ...stored.get(id), ...delta.values })
    if (delta.final) ended.add(id)
    return { applied: true, last_seq: delta.seq, errors: [] }
  })
  app.get<{ Params: { sco: string; file: string } }>(
    '/c/content-tok/:sco/:file',
    async (request, reply) => {
      const { sco, file } = request.params
      const script = SCO_SCRIPTS[sco]
      if (!script) return reply.status(404).send()
      reply.type('text/html; charset=utf-8')
      if (file === 'outer.html') {
        return `<!doctype html><title>${sco}</title><p>outer frame</p><iframe id="inner" src="inner.html"></iframe>`
      }
      if (file === 'inner.html') {
        return `<!doctype html><title>${sco} inner</title><p id="out">loading</p><script>${script}</script>`
      }
      return reply.status(404).send()
    },
  )
}

async function until<T>(what: string, check: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

before(async () => {
  const launched = await launchBrowser()
  if (isSkip(launched)) {
    skipReason = launched.skip
    return
  }
  browser = launched
  server = Fastify()
  await server.register(playerRoutes, { distDir: join(dir, 'player') })
  stubServer(server)
  origin = await server.listen({ host: '127.0.0.1', port: 0 })
})

after(async () => {
  await browser?.close()
  await server?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('player page in Chromium (stubbed runtime server)', () => {
  test('SCORM 2004: nested-frame discovery, commits in order, continue, suspendAll', async (t) => {
    if (!browser) return t.skip(skipReason)
    const page = await browser.page()
    const cspErrors: string[] = []
    page.on('console', (m) => {
      if (/Content.Security.Policy/i.test(m.text())) cspErrors.push(m.text())
    })
    const response = await page.goto(`${origin}/launch/ses_2004?token=${LAUNCH_TOKEN}`)
    assert.match(String(response?.headers()['content-security-policy']), /script-src 'self'/)

    // Lesson 1 ran, asked to continue; Lesson 2 suspended everything: the end screen shows.
    await page
      .getByRole('heading', { name: 'Your progress is saved.' })
      .waitFor({ timeout: 15_000 })
    await until('the final commits', () => ended.has('scd_1') && ended.has('scd_2'))

    const deliveries = recorded.filter((r) => r.path === 'deliveries').map((r) => r.body.item_id)
    assert.deepEqual(deliveries, ['item_1', 'item_2'], 'headings are skipped; continue went on')
    const commits = recorded.filter((r) => r.path === 'commits')
    for (const c of commits) {
      assert.equal(c.authorization, `Bearer ${RUNTIME_TOKEN}`)
      assert.match(c.contentType, /^application\/json/)
    }
    const scd1 = commits
      .filter((c) => c.body.delivery_id === 'scd_1')
      .map((c) => c.body.delta as Delta)
    assert.deepEqual(
      scd1.map((d) => [d.seq, d.fromSeq, d.final]),
      [
        [1, 0, false],
        [2, 1, true],
      ],
    )
    assert.deepEqual(stored.get('scd_1'), {
      'cmi.location': 'hops=2;learner=Doe, Jane',
      'cmi.suspend_data': 'continue-valid=true',
      'cmi.completion_status': 'completed',
      'adl.nav.request': 'continue',
    })
    assert.deepEqual(stored.get('scd_2'), {
      'cmi.exit': 'suspend',
      'adl.nav.request': 'suspendAll',
    })
    // The end screen leaves nothing to click and no SCO behind.
    assert.equal(await page.locator('iframe.cp-frame').count(), 0)
    assert.equal(await page.locator('.cp-controls').isVisible(), false)
    assert.deepEqual(cspErrors, [])
  })

  test('a SCO that ends without a request leaves the choice to the learner', async (t) => {
    if (!browser) return t.skip(skipReason)
    const page = await browser.page()
    await page.goto(`${origin}/launch/ses_stay?token=${LAUNCH_TOKEN}`)
    const notice = page.locator('.cp-notice')
    await notice.getByText('This part has ended.').waitFor({ timeout: 15_000 })
    assert.equal(await page.locator('.cp-controls').isVisible(), true)
    await notice.getByRole('button', { name: 'Continue' }).click()
    await page
      .getByRole('heading', { name: 'Your progress is saved.' })
      .waitFor({ timeout: 15_000 })
  })

  test('phone layout: contents in a drawer, big controls, the frame fills the width', async (t) => {
    if (!browser) return t.skip(skipReason)
    const page = await browser.page()
    await page.goto(`${origin}/launch/ses_phone?token=${LAUNCH_TOKEN}`)
    const inner = page.frameLocator('iframe.cp-frame').frameLocator('#inner')
    await inner.locator('#out', { hasText: 'ready' }).waitFor({ timeout: 15_000 })
    const box = await page.locator('iframe.cp-frame').boundingBox()
    assert.equal(Math.round(box?.width ?? 0), 390)
    assert.ok((box?.height ?? 0) > 600, `frame height ${box?.height}`)
    for (const name of ['Previous', 'Continue', 'Contents']) {
      const b = await page.getByRole('button', { name }).boundingBox()
      assert.ok((b?.height ?? 0) >= 44 && (b?.width ?? 0) >= 44, `${name} is big enough to tap`)
    }
    assert.equal(await page.getByRole('navigation', { name: 'Contents' }).isVisible(), false)
    await page.getByRole('button', { name: 'Contents' }).click()
    const toc = page.getByRole('navigation', { name: 'Contents' })
    await toc.waitFor({ state: 'visible' })
    assert.equal(
      await toc.getByRole('button', { name: 'Part 1' }).getAttribute('aria-current'),
      'step',
    )
    const deliveriesBefore = deliveryCount
    await toc.getByRole('button', { name: 'Part 2' }).click()
    await toc.waitFor({ state: 'hidden' })
    await until('the second delivery', () => deliveryCount > deliveriesBefore)
    await inner.locator('#out', { hasText: 'ready' }).waitFor({ timeout: 15_000 })
    assert.equal(await page.getByRole('button', { name: 'Continue' }).isDisabled(), true)
    assert.equal(await page.getByRole('button', { name: 'Previous' }).isDisabled(), false)
    // Leaving Part 1 without LMSFinish ended its delivery with a final commit.
    await until('part 1 ended', () => ended.has(`scd_${deliveriesBefore}`))
  })

  test('a single-item course shows neither contents nor previous/continue', async (t) => {
    if (!browser) return t.skip(skipReason)
    const page = await browser.page()
    await page.goto(`${origin}/launch/ses_12?token=${LAUNCH_TOKEN}`)
    const inner = page.frameLocator('iframe.cp-frame').frameLocator('#inner')
    await inner.locator('#out', { hasText: 'ready' }).waitFor({ timeout: 15_000 })
    assert.equal(await page.locator('.cp-menu').isVisible(), false)
    assert.equal(await page.locator('.cp-controls').isVisible(), false)
  })

  test('SCORM 1.2: closing the page sends what is left by beacon, token in the body', async (t) => {
    if (!browser) return t.skip(skipReason)
    const page = await browser.page()
    const before = recorded.length
    await page.goto(`${origin}/launch/ses_12?token=${LAUNCH_TOKEN}`)
    const frame = page.frameLocator('iframe.cp-frame').frameLocator('#inner')
    await frame.locator('#out', { hasText: 'ready' }).waitFor({ timeout: 15_000 })
    const id = `scd_${deliveryCount}`
    assert.equal(stored.get(id), undefined, 'the SCO never committed')
    await page.goto('about:blank')
    await until('the final commit', () => ended.has(id))
    // The player may also start an ordinary fetch while unloading; the beacon is the one that
    // is sure to leave, and it carries the token in its body because it cannot set headers.
    const beacons = await until('the beacon', () => {
      const found = recorded
        .slice(before)
        .filter((r) => r.path === 'commits' && r.body.delivery_id === id)
        .filter((r) => r.contentType.startsWith('text/plain'))
      return found.some((b) => (b.body.delta as Delta).final) ? found : undefined
    })
    for (const beacon of beacons) {
      assert.equal(beacon.authorization, undefined)
      assert.equal(beacon.body.token, RUNTIME_TOKEN)
    }
    assert.deepEqual(stored.get(id), { 'cmi.core.lesson_location': 'p7;hops=2' })
  })
})
