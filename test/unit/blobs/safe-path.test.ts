import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  assertSafeKey,
  keyProblem,
  splitSafePrefix,
  type UnsafeKeyReason,
} from '../../../src/infra/blobs/safe-path.ts'
import { AppError } from '../../../src/shared/app-error.ts'

describe('blob key rules', () => {
  test('ordinary package paths are accepted', () => {
    for (const key of [
      'ten_1/test/packages/pkg_1/pv_1/index.html',
      'a',
      'a/b/c.d.e',
      '.hidden/.well-known/x',
      'a/..b/c..',
      'a/...',
      'Mödule 1/fïle (copy) #2 & more+.txt',
      'shared/日本語/スライド.html',
      'x/%2e%2e/encoded-dots-are-just-names',
    ]) {
      assert.equal(keyProblem(key), null, key)
    }
  })

  const hostile: [string, UnsafeKeyReason][] = [
    ['', 'empty'],
    ['/etc/passwd', 'absolute'],
    ['//server/share', 'absolute'],
    ['C:/Windows/win.ini', 'absolute'],
    ['c:relative', 'absolute'],
    ['..', 'dot_segment'],
    ['../x', 'dot_segment'],
    ['a/../../x', 'dot_segment'],
    ['a/..', 'dot_segment'],
    ['.', 'dot_segment'],
    ['./a', 'dot_segment'],
    ['a/./b', 'dot_segment'],
    ['a//b', 'empty_segment'],
    ['a/', 'empty_segment'],
    ['a\\b', 'backslash'],
    ['..\\..\\x', 'backslash'],
    ['a/b\u0000.html', 'control_character'],
    ['a/b\u0000/../../x', 'control_character'],
    ['a\nb', 'control_character'],
    ['a\rb', 'control_character'],
    ['a\u007fb', 'control_character'],
    ['a/.cp-tmp-abc', 'reserved_name'],
    [`${'a'.repeat(256)}/x`, 'too_long'],
    [`${'ab/'.repeat(400)}x`, 'too_long'],
  ]
  for (const [key, reason] of hostile) {
    test(`refuses ${JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key)} (${reason})`, () => {
      assert.equal(keyProblem(key), reason)
      assert.throws(
        () => assertSafeKey(key),
        (err: unknown) =>
          err instanceof AppError &&
          err.code === 'invalid_request' &&
          (err.details as { reason: string }).reason === reason,
      )
    })
  }

  test('1024 UTF-8 bytes is the limit, counted in bytes not characters', () => {
    assert.equal(keyProblem(`${'a/'.repeat(511)}ab`), null)
    assert.equal(keyProblem(`${'a/'.repeat(511)}abc`), 'too_long')
    assert.equal(keyProblem('é'.repeat(127)), null)
    assert.equal(keyProblem('é'.repeat(128)), 'too_long')
  })
})

describe('blob prefixes', () => {
  test('split into a safe directory and a partial name', () => {
    assert.deepEqual(splitSafePrefix(''), { dir: '', namePrefix: '' })
    assert.deepEqual(splitSafePrefix('pv'), { dir: '', namePrefix: 'pv' })
    assert.deepEqual(splitSafePrefix('t/test/'), { dir: 't/test', namePrefix: '' })
    assert.deepEqual(splitSafePrefix('t/test/pkg_'), { dir: 't/test', namePrefix: 'pkg_' })
    assert.deepEqual(splitSafePrefix('t/..partial'), { dir: 't', namePrefix: '..partial' })
  })

  test('hostile prefixes are refused', () => {
    for (const prefix of ['/', '/etc/', '../', 'a/../', 'a//', '//', 'a/./b', 'a\\b', 'a\u0000/']) {
      assert.throws(() => splitSafePrefix(prefix), AppError, JSON.stringify(prefix))
    }
  })
})
