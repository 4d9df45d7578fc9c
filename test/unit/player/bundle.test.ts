import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import {
  buildBrowserBundle,
  ensureBrowserBundle,
  PLAYER_FILES,
} from '../../../src/browser/build.ts'

const outdir = join(mkdtempSync(join(tmpdir(), 'cp-player-')), 'player')
after(() => rmSync(join(outdir, '..'), { recursive: true, force: true }))

describe('player bundle', () => {
  test('builds player.js and player.css with source maps', async () => {
    const result = await buildBrowserBundle({ outdir })
    for (const name of PLAYER_FILES) assert.ok(statSync(join(outdir, name)).size > 0, name)
    assert.ok(result.inputs.includes('src/browser/player/main.ts'))
    assert.ok(
      result.inputs.some((f) => f.startsWith('src/modules/scorm/data-model/')),
      'the data model is bundled in',
    )
  })

  test('is a self-contained script: no external URLs, no imports, no node built-ins', () => {
    const js = readFileSync(join(outdir, 'player.js'), 'utf8')
    const css = readFileSync(join(outdir, 'player.css'), 'utf8')
    for (const [name, text] of [
      ['player.js', js],
      ['player.css', css],
    ] as const) {
      assert.doesNotMatch(text, /https?:\/\//i, `${name} has no absolute URLs`)
      assert.doesNotMatch(text, /(^|[^.\w])\/\/[a-z0-9-]+\.[a-z]{2,}/i, `${name}: no //host URLs`)
      assert.doesNotMatch(text, /@import/, `${name} pulls in nothing`)
    }
    assert.match(js, /^"use strict";\(\(\)=>\{/, 'an IIFE: nothing leaks into the page scope')
    assert.doesNotMatch(js, /\brequire\(|\bimport\(|node:/)
    assert.match(js, /API_1484_11/)
    assert.match(js, /sourceMappingURL=player\.js\.map/)
  })

  test('ensureBrowserBundle leaves an up-to-date build alone', async () => {
    const before = statSync(join(outdir, 'player.js')).mtimeMs
    await ensureBrowserBundle({ outdir })
    assert.equal(statSync(join(outdir, 'player.js')).mtimeMs, before, 'player.js was not rebuilt')
  })

  test('ensureBrowserBundle builds a missing bundle', async () => {
    rmSync(join(outdir, 'player.css'))
    await ensureBrowserBundle({ outdir })
    assert.ok(statSync(join(outdir, 'player.css')).size > 0)
  })
})
