import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  normaliseDomainRules,
  originAllowed,
  parseDomainRule,
} from '../../../src/modules/dispatches/allowed-domains.ts'

test('rules are normalised: case, IDN, trailing dot and slash, default ports kept only when written', () => {
  const cases: Array<[string, string]> = [
    ['LMS.Example.COM', 'lms.example.com'],
    ['lms.example.com.', 'lms.example.com'],
    ['https://lms.example.com/', 'https://lms.example.com'],
    ['*.Example.com', '*.example.com'],
    ['http://intranet:8080', 'http://intranet:8080'],
    ['lms.example.com:443', 'lms.example.com:443'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['10.0.0.7', '10.0.0.7'],
    ['[::1]:8443', '[::1]:8443'],
  ]
  for (const [input, canonical] of cases) {
    const parsed = parseDomainRule(input)
    assert.ok(parsed.ok, `${input}: ${!parsed.ok && parsed.problem}`)
    assert.equal(parsed.canonical, canonical, input)
  }
})

test('rules that could not mean a host are refused with a reason', () => {
  for (const input of [
    '',
    '*',
    '*.com',
    '*.10.0.0.7',
    'ftp://lms.example.com',
    'lms.example.com/courses',
    'user@lms.example.com',
    'lms.*.example.com',
    'lms example.com',
    'https://',
  ]) {
    const parsed = parseDomainRule(input)
    assert.equal(parsed.ok, false, input)
  }
  const list = normaliseDomainRules(['a.example', 'A.example', '*.com'])
  assert.equal(list.ok, false)
  assert.deepEqual(normaliseDomainRules(['a.example', 'A.example.']), {
    ok: true,
    rules: ['a.example'],
  })
})

test('matching: exact hosts, subdomains on a label boundary, scheme and port when named', () => {
  const rules = ['lms.acme.example', '*.acme-learning.example', 'https://secure.acme.example:8443']
  const yes = [
    'https://lms.acme.example',
    'http://lms.acme.example',
    'https://lms.acme.example:9000',
    'https://eu.acme-learning.example',
    'https://x.y.acme-learning.example',
    'https://secure.acme.example:8443',
  ]
  const no = [
    'https://acme.example',
    'https://www.lms.acme.example',
    'https://lms.acme.example.attacker.example',
    'https://acme-learning.example',
    'https://evilacme-learning.example',
    'https://secure.acme.example',
    'http://secure.acme.example:8443',
    'null',
    'file://',
    'https://lms.acme.example/',
    'HTTPS://LMS.ACME.EXAMPLE',
    'javascript:alert(1)',
  ]
  for (const origin of yes) assert.equal(originAllowed(origin, rules), true, origin)
  for (const origin of no) assert.equal(originAllowed(origin, rules), false, origin)
})

test('no rules allow every real origin, never an opaque one', () => {
  assert.equal(originAllowed('https://anywhere.example', []), true)
  assert.equal(originAllowed('http://127.0.0.1:8080', []), true)
  assert.equal(originAllowed('null', []), false)
  assert.equal(originAllowed('', []), false)
})
