import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  applyParameters,
  buildLaunchHref,
  joinBases,
  resolveHref,
} from '../../../src/modules/scorm/manifest/index.ts'

function launch(base: string, href: string, parameters: string | null): string {
  const resolved = resolveHref(base, href)
  assert.notEqual(resolved.kind, 'invalid', JSON.stringify(resolved))
  if (resolved.kind === 'invalid') throw new Error('unreachable')
  return buildLaunchHref(resolved, parameters)
}

describe('item parameters are joined to the resource href', () => {
  const cases: [string, string | null, string][] = [
    ['a.html', null, 'a.html'],
    ['a.html', '', 'a.html'],
    ['a.html', '?x=1', 'a.html?x=1'],
    ['a.html', 'x=1', 'a.html?x=1'],
    ['a.html', '&x=1', 'a.html?x=1'],
    ['a.html', '??&x=1', 'a.html?x=1'],
    ['a.html?p=0', '?x=1', 'a.html?p=0&x=1'],
    ['a.html?p=0', 'x=1&y=2', 'a.html?p=0&x=1&y=2'],
    ['a.html', '#page3', 'a.html#page3'],
    ['a.html#top', '#page3', 'a.html#top'],
    ['a.html#top', '?x=1', 'a.html?x=1#top'],
    ['a.html?p=0#top', 'x=1', 'a.html?p=0&x=1#top'],
    ['a.html', 'x=1#s2', 'a.html?x=1#s2'],
  ]
  for (const [href, parameters, expected] of cases) {
    test(`${href} + ${JSON.stringify(parameters)} → ${expected}`, () => {
      assert.equal(launch('', href, parameters), expected)
    })
  }

  test('applyParameters alone', () => {
    assert.deepEqual(applyParameters(null, null, '?tc=CM-01&act=1'), {
      query: 'tc=CM-01&act=1',
      fragment: null,
    })
  })
})

describe('hrefs resolve inside the package', () => {
  test('xml:base values are joined outside-in, as folders even without a slash', () => {
    assert.equal(joinBases(['course/', 'resources']), 'course/resources/')
    assert.equal(joinBases([undefined, '', 'x/']), 'x/')
    assert.equal(joinBases(['course/', '/root/']), 'root/')
    assert.equal(
      launch(joinBases(['content/', 'sco1/']), 'index.html', null),
      'content/sco1/index.html',
    )
  })

  test('. and .. inside the package are resolved', () => {
    assert.deepEqual(resolveHref('a/b/', '../c/./d.html'), {
      kind: 'file',
      path: 'a/c/d.html',
      rawPath: 'a/c/d.html',
      query: null,
      fragment: null,
    })
  })

  test('percent-escapes are decoded for the file check and re-encoded in the URL', () => {
    const r = resolveHref('', 'my%20course/page%201.html?x=a%20b')
    assert.equal(r.kind, 'file')
    if (r.kind !== 'file') return
    assert.equal(r.path, 'my course/page 1.html')
    assert.equal(r.rawPath, 'my%20course/page%201.html')
    assert.equal(buildLaunchHref(r, null), 'my%20course/page%201.html?x=a%20b')
    assert.equal(launch('', 'dossier/leçon 1.html', null), 'dossier/le%C3%A7on%201.html')
  })

  test('escaping the package, absolute paths, drive letters and folders are invalid', () => {
    assert.match(JSON.stringify(resolveHref('', '../x.html')), /outside the package/)
    assert.match(JSON.stringify(resolveHref('a/', '../../x.html')), /outside the package/)
    assert.match(JSON.stringify(resolveHref('a/', '/etc/passwd')), /absolute path/)
    assert.match(JSON.stringify(resolveHref('', 'C:/course/x.html')), /drive letter/)
    assert.match(JSON.stringify(resolveHref('', 'folder/')), /names a folder/)
  })

  test('http(s) URLs are external content; other schemes are refused', () => {
    assert.deepEqual(resolveHref('resources/', 'https://cdn.example.com/c/index.html?a=1'), {
      kind: 'external',
      url: 'https://cdn.example.com/c/index.html',
      query: 'a=1',
      fragment: null,
    })
    assert.equal(
      launch('', 'https://cdn.example.com/c/index.html?a=1', 'b=2'),
      'https://cdn.example.com/c/index.html?a=1&b=2',
    )
    assert.match(
      JSON.stringify(resolveHref('', 'javascript:alert(1)')),
      /unsupported URL scheme 'javascript:'/,
    )
    assert.match(
      JSON.stringify(resolveHref('', 'file:///etc/passwd')),
      /unsupported URL scheme 'file:'/,
    )
  })
})
