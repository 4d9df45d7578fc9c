import assert from 'node:assert/strict'
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import {
  enforceHardening,
  ensureTemplate,
  hardenedRegistry,
  privateCacheDir,
} from '../../../src/infra/office/office-profile.ts'
import { rasterTasks } from '../../../src/infra/office/pdf-rasterizer.ts'
import { runProcessGroup } from '../../../src/infra/office/process-group.runner.ts'
import { Semaphore } from '../../../src/infra/office/semaphore.ts'
import { processesMentioning } from './office.helper.ts'

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' }

describe('process groups', () => {
  test('a timeout kills the leader and every process it started', async () => {
    const marker = `cp-marker-${process.pid}-${Date.now()}`
    const started = performance.now()
    const result = await runProcessGroup(
      'sh',
      ['-c', `sleep 30 & sleep 30 & echo ${marker}; wait`],
      { env, timeoutMs: 300 },
    )
    assert.equal(result.timedOut, true)
    assert.ok(performance.now() - started < 5000)
    assert.match(result.output, new RegExp(marker))
    await new Promise((r) => setTimeout(r, 100))
    assert.deepEqual(processesMentioning(marker), [])
  })

  test('children left behind by a leader that exits are killed too', async () => {
    const marker = `cp-orphan-${process.pid}-${Date.now()}`
    const result = await runProcessGroup(
      'sh',
      ['-c', `(exec -a ${marker} sleep 30) >/dev/null 2>&1 & exit 3`],
      {
        env,
        timeoutMs: 10_000,
      },
    )
    assert.equal(result.code, 3)
    await new Promise((r) => setTimeout(r, 100))
    assert.deepEqual(processesMentioning(marker), [])
  })

  test('abort ends the run; only the tail of long output is kept', async () => {
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    const result = await runProcessGroup(
      'sh',
      ['-c', 'head -c 100000 /dev/zero | tr "\\0" x; sleep 30'],
      {
        env,
        timeoutMs: 10_000,
        signal: controller.signal,
        keepBytes: 1000,
      },
    )
    assert.equal(result.aborted, true)
    assert.ok(result.output.length <= 1000)
  })
})

describe('pdftocairo runs for parallel rasterising', () => {
  const runs = (pages: number[], parallel: number) =>
    rasterTasks(pages, parallel).map((t) => `${t.first}-${t.last}${t.parity ?? ''}:${t.pages}`)

  test('two workers draw the odd and the even pages of each run of consecutive pages', () => {
    assert.deepEqual(runs([1, 2, 3, 4, 5, 6, 7], 2), ['1-7odd:1,3,5,7', '1-7even:2,4,6'])
    // Hidden slides 2 and 5 are not drawn: the runs stop at them.
    assert.deepEqual(runs([1, 3, 4, 6, 7, 8], 2), [
      '1-1:1',
      '3-4odd:3',
      '3-4even:4',
      '6-8odd:7',
      '6-8even:6,8',
    ])
  })

  test('one worker draws each run at once; more workers cut runs into pieces first', () => {
    assert.deepEqual(runs([1, 3, 4, 6], 1), ['1-1:1', '3-4:3,4', '6-6:6'])
    assert.deepEqual(runs([1, 2, 3, 4, 5, 6, 7, 8], 4), [
      '1-4odd:1,3',
      '1-4even:2,4',
      '5-8odd:5,7',
      '5-8even:6,8',
    ])
    assert.deepEqual(runs([5], 4), ['5-5:5'])
    assert.deepEqual(runs([], 4), [])
  })

  test('every page is drawn exactly once', () => {
    const pages = [1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 14, 15, 16]
    for (const parallel of [1, 2, 3, 4, 8]) {
      const drawn = rasterTasks(pages, parallel).flatMap((t) => t.pages)
      assert.deepEqual(
        drawn.sort((a, b) => a - b),
        pages,
        `parallel ${parallel}`,
      )
    }
  })
})

describe('LibreOffice profiles', () => {
  let dir = ''
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cp-profile-'))
  })
  after(() => rm(dir, { recursive: true, force: true }))

  test('hardening is put back when LibreOffice rewrote the registry without it', async () => {
    const profile = join(dir, 'p1')
    await mkdir(join(profile, 'user'), { recursive: true })
    const file = join(profile, 'user', 'registrymodifications.xcu')
    await writeFile(
      file,
      hardenedRegistry().replace(/<item[^\n]*BlockUntrustedRefererLinks[^\n]*\n/, ''),
    )
    assert.equal(await enforceHardening(profile), true)
    assert.match(await readFile(file, 'utf8'), /BlockUntrustedRefererLinks/)
    assert.equal(await enforceHardening(profile), false, 'nothing to do the second time')
  })

  test('concurrent builders end with one complete template', async () => {
    const cache = await privateCacheDir(join(dir, 'cache'))
    let warmUps = 0
    const warmUp = async (profile: string) => {
      warmUps++
      await new Promise((r) => setTimeout(r, 50))
      await writeFile(join(profile, 'user', 'warm'), 'yes')
    }
    const paths = await Promise.all([1, 2, 3].map(() => ensureTemplate(cache, 'LO 1', warmUp)))
    assert.equal(new Set(paths).size, 1)
    const template = paths[0] as string
    assert.equal(await readFile(join(template, 'user', 'warm'), 'utf8'), 'yes')
    assert.match(
      await readFile(join(template, 'user', 'registrymodifications.xcu'), 'utf8'),
      /DisableMacrosExecution/,
    )
    assert.deepEqual(
      (await readdir(cache)).filter((f) => f.startsWith('build-')),
      [],
      'no scratch left',
    )
    await ensureTemplate(cache, 'LO 1', warmUp)
    assert.equal(warmUps, 3, 'a ready template is reused')
    assert.notEqual(
      await ensureTemplate(cache, 'LO 2', warmUp),
      template,
      'a new version, a new template',
    )
  })

  test('a cache directory other users can write to is refused', async () => {
    const open = join(dir, 'open')
    await mkdir(open)
    await chmod(open, 0o777)
    await assert.rejects(privateCacheDir(open), /open to other users/)
  })
})

describe('semaphore', () => {
  test('at most `limit` holders; waiters are served in order; abort leaves the queue', async () => {
    const s = new Semaphore(2)
    const order: string[] = []
    const a = await s.acquire()
    const b = await s.acquire()
    const controller = new AbortController()
    const c = s.acquire().then((release) => {
      order.push('c')
      return release
    })
    const aborted = s.acquire(controller.signal).catch(() => order.push('aborted'))
    const d = s.acquire().then((release) => {
      order.push('d')
      return release
    })
    controller.abort()
    await aborted
    a()
    ;(await c)()
    b()
    ;(await d)()
    assert.deepEqual(order, ['aborted', 'c', 'd'])
  })
})
