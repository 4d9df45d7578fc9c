import assert from 'node:assert/strict'
import { chmod, mkdir, mkdtemp, readFile, readlink, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { createSlideRenderer, isRenderError } from '../../../src/infra/office/index.ts'

/**
 * A stand-in for soffice: answers --version like LibreOffice, and on a conversion records its
 * environment, arguments and network namespace, then writes no PDF (as soffice does when it
 * cannot load a file); the profile warm-up gets a PDF. What it records is what LibreOffice would
 * get.
 */
const FAKE_SOFFICE = `#!/bin/sh
if [ "$1" = "--version" ]; then echo "LibreOffice 0.0.0.0 stand-in"; exit 0; fi
for a in "$@"; do last="$a"; done
if [ "\${last##*/}" = "warm-up.fodp" ]; then echo "%PDF-1.4" > "\${last%.fodp}.pdf"; exit 0; fi
out="$(dirname "$0")/record"
env > "$out.env"
printf '%s\\n' "$@" > "$out.args"
readlink /proc/self/ns/net > "$out.netns"
exit 0
`

describe('what LibreOffice is given', () => {
  let dir = ''
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cp-office-fake-'))
    await writeFile(join(dir, 'soffice'), FAKE_SOFFICE)
    await chmod(join(dir, 'soffice'), 0o755)
    process.env.COURSEPORT_TEST_SECRET = 'must-not-leak'
  })
  after(async () => {
    delete process.env.COURSEPORT_TEST_SECRET
    await rm(dir, { recursive: true, force: true })
  })

  test('no network, none of our environment, a hardened private profile', async (t) => {
    const renderer = createSlideRenderer({
      binary: join(dir, 'soffice'),
      sandbox: 'unshare',
      timeoutSeconds: 30,
      concurrency: 1,
      searchPath: process.env.PATH,
      cacheDir: join(dir, 'cache'),
    })
    const availability = await renderer.availability()
    if (!availability.available) {
      if (process.env.CI === 'true') assert.fail(availability.reason)
      t.skip(availability.reason)
      return
    }
    const workDir = join(dir, 'job')
    await mkdir(workDir)
    await writeFile(join(workDir, 'deck.pptx'), 'not really a deck')
    await assert.rejects(
      renderer.render({
        inputPath: join(workDir, 'deck.pptx'),
        workDir,
        plan: { slideCount: 1, slides: [1] },
      }),
      (err) => isRenderError(err) && err.code === 'load_failed',
    )
    const env = await readFile(join(dir, 'record.env'), 'utf8')
    assert.doesNotMatch(env, /COURSEPORT_TEST_SECRET|must-not-leak/)
    for (const name of ['DATABASE_URL', 'SECRET_KEY', 'AWS_SECRET_ACCESS_KEY']) {
      assert.doesNotMatch(env, new RegExp(`^${name}=`, 'm'))
    }
    assert.match(env, new RegExp(`^HOME=${workDir}/home$`, 'm'))
    const ours = await readlink('/proc/self/ns/net')
    const theirs = (await readFile(join(dir, 'record.netns'), 'utf8')).trim()
    assert.notEqual(theirs, ours, 'LibreOffice runs in a network namespace of its own')
    const args = (await readFile(join(dir, 'record.args'), 'utf8')).split('\n')
    const profileArg = args.find((a) => a.startsWith('-env:UserInstallation=file://'))
    assert.equal(profileArg, `-env:UserInstallation=file://${workDir}/profile`)
    const registry = await readFile(
      join(workDir, 'profile', 'user', 'registrymodifications.xcu'),
      'utf8',
    )
    for (const setting of [
      'BlockUntrustedRefererLinks',
      'DisableMacrosExecution',
      'MacroSecurityLevel',
    ]) {
      assert.match(registry, new RegExp(`oor:name="${setting}"`))
    }
    assert.ok(args.includes('--headless'))
  })

  test('rendering turned off, or LibreOffice missing, is reported with the reason', async () => {
    const off = createSlideRenderer({
      binary: null,
      sandbox: 'unshare',
      timeoutSeconds: 5,
      concurrency: 1,
    })
    assert.deepEqual(await off.availability(), {
      available: false,
      reason: 'slide rendering is turned off (OFFICE_BINARY=none)',
    })
    const missing = createSlideRenderer({
      binary: '/nonexistent/soffice',
      sandbox: 'unshare',
      timeoutSeconds: 5,
      concurrency: 1,
    })
    const availability = await missing.availability()
    assert.equal(availability.available, false)
    assert.match(availability.available ? '' : availability.reason, /not installed/)
    await assert.rejects(
      missing.render({ inputPath: '/x.pptx', workDir: dir, plan: { slideCount: 1, slides: [1] } }),
      (err) => isRenderError(err) && err.code === 'unavailable',
    )
  })
})
