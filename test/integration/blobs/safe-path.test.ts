import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { resolveSafePath } from '../../../src/infra/blobs/safe-path.ts'
import { AppError } from '../../../src/shared/app-error.ts'
import { HOSTILE_KEYS } from './blob-store.suite.ts'

function refused(reason?: string) {
  return (err: unknown) =>
    err instanceof AppError &&
    err.code === 'invalid_request' &&
    (reason === undefined || (err.details as { reason: string }).reason === reason)
}

describe('safe path resolution on a real directory tree', () => {
  let base: string
  let root: string
  let outside: string
  before(async () => {
    base = await mkdtemp(join(tmpdir(), 'cp-safe-path-'))
    root = join(base, 'root')
    outside = join(base, 'outside')
    await mkdir(join(root, 'pkg', 'v1'), { recursive: true })
    await mkdir(outside)
    await writeFile(join(root, 'pkg', 'v1', 'index.html'), 'in')
    await writeFile(join(outside, 'secret.txt'), 'out')
    await symlink(outside, join(root, 'pkg', 'escape-dir'))
    await symlink(join(outside, 'secret.txt'), join(root, 'pkg', 'escape-file.txt'))
    await symlink('../../outside/secret.txt', join(root, 'pkg', 'relative-escape.txt'))
    await symlink(join(outside, 'not-there.txt'), join(root, 'pkg', 'dangling.txt'))
    await symlink(join(root, 'pkg', 'v1'), join(root, 'pkg', 'current'))
    await symlink(root, join(base, 'root-link'))
  })
  after(() => rm(base, { recursive: true, force: true }))

  test('keys map under the root', async () => {
    assert.equal(await resolveSafePath(root, 'pkg/v1/index.html'), join(root, 'pkg/v1/index.html'))
    assert.equal(await resolveSafePath(root, 'pkg/v2/new.html'), join(root, 'pkg/v2/new.html'))
    assert.equal(await resolveSafePath(root, ''), root)
  })

  test('hostile keys are refused before touching the disk', async () => {
    for (const key of HOSTILE_KEYS.filter((k) => k !== '')) {
      await assert.rejects(resolveSafePath(root, key), refused(), JSON.stringify(key))
    }
  })

  test('symlinks leading out of the root are refused, however they are reached', async () => {
    for (const key of [
      'pkg/escape-dir/secret.txt',
      'pkg/escape-dir/new.txt',
      'pkg/escape-dir/deeper/new.txt',
      'pkg/escape-file.txt',
      'pkg/relative-escape.txt',
      'pkg/dangling.txt',
    ]) {
      await assert.rejects(resolveSafePath(root, key), refused('escapes_root'), key)
      await assert.rejects(
        resolveSafePath(root, key, { createParents: true }),
        refused('escapes_root'),
        `${key} (write)`,
      )
    }
    assert.deepEqual(await readdir(outside), ['secret.txt'])
  })

  test('symlinks staying inside the root resolve to their real target', async () => {
    assert.equal(
      await resolveSafePath(root, 'pkg/current/index.html'),
      join(root, 'pkg/v1/index.html'),
    )
    assert.equal(
      await resolveSafePath(root, 'pkg/current', { entry: true }),
      join(root, 'pkg', 'current'),
    )
  })

  test('a root reached through a symlink still works', async () => {
    const viaLink = await resolveSafePath(join(base, 'root-link'), 'pkg/v1/index.html')
    assert.equal(viaLink, join(root, 'pkg/v1/index.html'))
  })

  test('createParents makes the missing directories, inside the root only', async () => {
    const path = await resolveSafePath(root, 'pkg/v3/a/b/c.js', { createParents: true })
    assert.equal(path, join(root, 'pkg/v3/a/b/c.js'))
    assert.deepEqual(await readdir(join(root, 'pkg/v3/a/b')), [])
  })
})
