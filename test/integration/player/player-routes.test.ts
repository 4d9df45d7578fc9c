import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import Fastify, { type FastifyInstance } from 'fastify'
import { playerRoutes } from '../../../src/http/player/index.ts'

const dir = mkdtempSync(join(tmpdir(), 'cp-player-routes-'))
const distDir = join(dir, 'player')
let app: FastifyInstance

before(async () => {
  app = Fastify()
  // The bundle is built into the temp dir on registration, as on a fresh checkout.
  await app.register(playerRoutes, { distDir })
  await app.ready()
})
after(async () => {
  await app.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('launch page and player bundle on the content origin', () => {
  test('the launch page is a static shell under a strict policy, never cached', async () => {
    const res = await app.inject({ url: '/launch/ses_123?token=abc.def' })
    assert.equal(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/)
    assert.equal(
      res.headers['content-security-policy'],
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; frame-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; object-src 'none'",
    )
    assert.equal(res.headers['cache-control'], 'no-store')
    assert.equal(res.headers['referrer-policy'], 'no-referrer')
    assert.equal(res.headers['x-frame-options'], undefined, 'LMSs may frame the player')
    const scripts = [...res.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)]
    assert.equal(scripts.length, 1)
    assert.match(scripts[0]?.[1] ?? '', /src="\/player\/player\.js\?v=[\w-]+"/)
    assert.equal(scripts[0]?.[2], '', 'no inline script')
    assert.match(res.body, /<link rel="stylesheet" href="\/player\/player\.css\?v=[\w-]+">/)
    assert.doesNotMatch(res.body, /ses_123|abc\.def|style=/, 'no data and no inline style')
  })

  test('session ids that are not ids are not found', async () => {
    const res = await app.inject({ url: '/launch/..%2F..%2Fetc' })
    assert.equal(res.statusCode, 404)
  })

  test('the versioned bundle is cached for good; other URLs revalidate by ETag', async () => {
    const page = await app.inject({ url: '/launch/ses_1?token=t' })
    const src = /src="([^"]+)"/.exec(page.body)?.[1] ?? ''
    const pinned = await app.inject({ url: src })
    assert.equal(pinned.statusCode, 200)
    assert.equal(pinned.headers['cache-control'], 'public, max-age=31536000, immutable')
    assert.match(String(pinned.headers['content-type']), /^text\/javascript/)
    assert.equal(pinned.body, readFileSync(join(distDir, 'player.js'), 'utf8'))

    const plain = await app.inject({ url: '/player/player.css' })
    assert.equal(plain.headers['cache-control'], 'public, max-age=0, must-revalidate')
    const etag = String(plain.headers.etag)
    const again = await app.inject({
      url: '/player/player.css',
      headers: { 'if-none-match': etag },
    })
    assert.equal(again.statusCode, 304)
    assert.equal(again.body, '')
  })

  test('compressed for clients that accept it', async () => {
    const identity = readFileSync(join(distDir, 'player.js'))
    const br = await app.inject({
      url: '/player/player.js',
      headers: { 'accept-encoding': 'gzip, br' },
    })
    assert.equal(br.headers['content-encoding'], 'br')
    assert.equal(br.headers.vary, 'accept-encoding')
    assert.ok(brotliDecompressSync(br.rawPayload).equals(identity))
    const gz = await app.inject({
      url: '/player/player.js',
      headers: { 'accept-encoding': 'gzip, br;q=0' },
    })
    assert.equal(gz.headers['content-encoding'], 'gzip')
    assert.ok(gunzipSync(gz.rawPayload).equals(identity))
    const head = await app.inject({ method: 'HEAD', url: '/player/player.js' })
    assert.equal(head.statusCode, 200)
  })

  test('only the bundle files are served', async () => {
    for (const url of ['/player/build-meta.json', '/player/', '/player/../package.json']) {
      const res = await app.inject({ url })
      assert.equal(res.statusCode, 404, url)
    }
    const map = await app.inject({ url: '/player/player.js.map' })
    assert.equal(map.statusCode, 200)
  })
})
