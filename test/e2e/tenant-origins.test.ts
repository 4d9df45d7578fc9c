/**
 * One content origin per tenant, in Chromium (docs/content-origins.md). A page on a third
 * loopback origin frames two tenants' players, as a portal or a hostile course page could. The
 * attack of issue 10.2 fails at every step: tenant A's player (where A's course runs) cannot
 * read B's frame — its URL and launch token — because the browser keeps the origins apart; a
 * token of B presented on A's host is refused by the server; localStorage (where the player
 * keeps pending commits) is separate.
 */
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import { after, before, test } from 'node:test'
import type { Frame, Page } from 'playwright-core'
import { tenantLabel } from '../../src/shared/content-origin.ts'
import { describeEachDatabase } from '../helpers/database.ts'
import { isSkip, launchBrowser, type TestBrowser } from './helpers/browser.ts'
import {
  apiClient,
  freePort,
  type LaunchAnswer,
  type LiveServer,
  startLiveServer,
  until,
} from './helpers/live-server.ts'

let browser: TestBrowser | undefined
let skipReason: string | undefined
before(async () => {
  const launched = await launchBrowser({ viewport: { width: 1280, height: 800 } })
  if (isSkip(launched)) skipReason = launched.skip
  else browser = launched
})
after(() => browser?.close())

const escapeHtml = (value: string) =>
  value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;')

/** A page on 127.0.0.1:{port} framing two launch URLs side by side. */
async function serveTwoFrames(): Promise<{ url(a: string, b: string): string; server: Server }> {
  const port = await freePort()
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://portal')
    const a = url.searchParams.get('a') ?? ''
    const b = url.searchParams.get('b') ?? ''
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    response.end(`<!doctype html><html><head><meta charset="utf-8"><title>Portal</title></head>
<body style="margin:0;display:flex">
<iframe id="a" src="${escapeHtml(a)}" style="width:50vw;height:100vh;border:0"></iframe>
<iframe id="b" src="${escapeHtml(b)}" style="width:50vw;height:100vh;border:0"></iframe>
</body></html>`)
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return {
    server,
    url: (a, b) =>
      `http://127.0.0.1:${port}/?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`,
  }
}

async function playerOn(page: Page, origin: string): Promise<Frame> {
  const frame = await until(
    `the player on ${origin}`,
    () => page.frames().find((f) => f.url().startsWith(`${origin}/launch/`)) ?? false,
    20_000,
  )
  // The player has exchanged its launch token: the course title is shown.
  try {
    await frame.waitForFunction(
      () => document.querySelector('.cp-title')?.textContent?.trim(),
      undefined,
      { timeout: 20_000 },
    )
  } catch (err) {
    throw new Error(`${origin}: ${await frame.locator('body').textContent()}`, { cause: err })
  }
  return frame
}

describeEachDatabase('tenant origins: two players framed in one page', (database) => {
  let server: LiveServer
  let portal: Awaited<ReturnType<typeof serveTwoFrames>>
  before(async () => {
    server = await startLiveServer(database(), { origins: 'tenant' })
    portal = await serveTwoFrames()
  })
  after(async () => {
    portal?.server.closeAllConnections()
    await new Promise<void>((resolve) =>
      portal ? portal.server.close(() => resolve()) : resolve(),
    )
    await server?.close()
  })

  test('A cannot read B, B tokens are refused on A, storage is separate', {
    timeout: 120_000,
  }, async (t) => {
    if (!browser) return t.skip(skipReason)
    const port = new URL(server.contentUrl).port
    const launches: LaunchAnswer[] = []
    const origins: string[] = []
    for (const name of ['a', 'b']) {
      const tenant = await server.t.createTenant('growth')
      const client = apiClient(server, tenant)
      const pkg = await client.uploadGolf('RuntimeBasicCalls_SCORM20043rdEdition.zip')
      launches.push(await client.launch(pkg, `${name}-learner`))
      origins.push(`http://${tenantLabel(tenant.tenantId)}.localhost:${port}`)
    }
    const [a, b] = launches as [LaunchAnswer, LaunchAnswer]
    const [originA, originB] = origins as [string, string]
    assert.ok(a.launch_url.startsWith(`${originA}/launch/`), a.launch_url)
    assert.ok(b.launch_url.startsWith(`${originB}/launch/`), b.launch_url)

    const page = await (browser as TestBrowser).context.newPage()
    try {
      await page.goto(portal.url(a.launch_url, b.launch_url))
      const frameA = await playerOn(page, originA)
      const frameB = await playerOn(page, originB)

      // 1. From A's origin (where A's course runs), B's frame is opaque: no URL, no token.
      const reads = await frameA.evaluate(() => {
        const other = window.top?.frames[1] as Window
        const attempt = (read: () => unknown) => {
          try {
            return String(read())
          } catch (err) {
            return (err as Error).name
          }
        }
        return {
          href: attempt(() => other.location.href),
          document: attempt(() => other.document.URL),
          storage: attempt(() => other.localStorage.length),
          top: attempt(() => window.top?.document.body.innerHTML),
        }
      })
      assert.deepEqual(reads, {
        href: 'SecurityError',
        document: 'SecurityError',
        storage: 'SecurityError',
        top: 'SecurityError',
      })

      // 2. Even holding B's tokens, A's origin cannot use them: the server refuses them there.
      const launchB = new URL(b.launch_url)
      const tokenB = launchB.searchParams.get('token') as string
      const exchanged = await frameA.evaluate(
        async ({ sessionId, token }) => {
          const res = await fetch(`/runtime/sessions/${sessionId}/start`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ token }),
          })
          return res.status
        },
        { sessionId: b.session_id, token: tokenB },
      )
      assert.equal(exchanged, 401, "B's launch token on A's host")
      // B's own content and runtime tokens (as B's player holds them), presented on A's host.
      const started = await frameB.evaluate(
        async ({ sessionId, token }) => {
          const res = await fetch(`/runtime/sessions/${sessionId}/start`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ token }),
          })
          return (await res.json()) as {
            runtime_token: string
            content_base: string
            items: Array<{ id: string; href: string | null }>
          }
        },
        { sessionId: b.session_id, token: tokenB },
      )
      const file = `${started.content_base}${String(started.items.find((i) => i.href)?.href).split('?')[0]}`
      const onA = await frameA.evaluate(
        async ({ file, sessionId, runtime, item }) => {
          const content = await fetch(file)
          const delivery = await fetch(`/runtime/sessions/${sessionId}/deliveries`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${runtime}` },
            body: JSON.stringify({ item_id: item }),
          })
          const commit = await fetch(`/runtime/sessions/${sessionId}/commits`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${runtime}` },
            body: JSON.stringify({
              delivery_id: 'scd_x',
              delta: { seq: 1, fromSeq: 0, values: { 'cmi.score.raw': '0' } },
            }),
          })
          return { content: content.status, delivery: delivery.status, commit: commit.status }
        },
        {
          file,
          sessionId: b.session_id,
          runtime: started.runtime_token,
          item: started.items[0]?.id ?? '',
        },
      )
      assert.deepEqual(onA, { content: 403, delivery: 401, commit: 401 })
      const onB = await frameB.evaluate(async (url) => (await fetch(url)).status, file)
      assert.equal(onB, 200, 'the same file on its own origin')

      // 3. Storage, where the player keeps pending commits. Framed cross-site, this Chromium
      // gives neither player storage at all; opened first-party, each origin has its own.
      const framed = await frameB.evaluate(() => {
        try {
          localStorage.setItem('cp-e2e-probe', 'written by B')
          return 'written'
        } catch (err) {
          return (err as Error).name
        }
      })
      const seenFramed = await frameA.evaluate(() => {
        try {
          return localStorage.getItem('cp-e2e-probe')
        } catch (err) {
          return (err as Error).name
        }
      })
      assert.ok(framed === 'SecurityError' || seenFramed === null, `${framed}, ${seenFramed}`)
      const context = (browser as TestBrowser).context
      const tabB = await context.newPage()
      const tabA = await context.newPage()
      try {
        await tabB.goto(b.launch_url)
        await playerOn(tabB, originB)
        await tabB.evaluate(() => localStorage.setItem('cp-e2e-probe', 'written by B'))
        await tabA.goto(a.launch_url)
        await playerOn(tabA, originA)
        const seenByA = await tabA.evaluate(() => ({
          probe: localStorage.getItem('cp-e2e-probe'),
          keys: Object.keys(localStorage),
        }))
        assert.equal(seenByA.probe, null)
        assert.ok(
          seenByA.keys.every((key) => !key.includes(b.session_id)),
          seenByA.keys.join(', '),
        )
        assert.equal(
          await tabB.evaluate(() => localStorage.getItem('cp-e2e-probe')),
          'written by B',
        )
      } finally {
        await tabA.close()
        await tabB.close()
      }
    } finally {
      await page.close()
    }
  })
})
