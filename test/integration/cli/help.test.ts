import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { test } from 'node:test'

const cli = join(import.meta.dirname, '../../../src/main/cli.ts')

test('courseport --help, -h and help print the usage and succeed (no "unknown command")', () => {
  for (const arg of ['--help', '-h', 'help']) {
    const run = spawnSync(process.execPath, [cli, arg], { encoding: 'utf8' })
    assert.equal(run.status, 0, `${arg}: ${run.stderr}`)
    assert.match(run.stdout, /^Usage: courseport <command>/)
    assert.equal(run.stderr, '')
  }
  const wrong = spawnSync(process.execPath, [cli, 'frobnicate'], { encoding: 'utf8' })
  assert.equal(wrong.status, 64)
  assert.match(wrong.stderr, /^unknown command: frobnicate/)
})
