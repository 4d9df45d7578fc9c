/**
 * The SSRF table of the egress client's own tests (test/unit/http-egress/ssrf-table.test.ts),
 * reused for quick publish's image_url. The cases are read from that file's source rather than
 * copied, so both suites always run the same table; importing the test file would run its tests.
 */
import { readFileSync } from 'node:fs'
import type { EgressErrorCode, Resolver } from '../../../src/infra/http-egress/index.ts'

const SOURCE = readFileSync(
  new URL('../../unit/http-egress/ssrf-table.test.ts', import.meta.url),
  'utf8',
)

function block(name: string): string {
  const start = SOURCE.indexOf(`const ${name}`)
  const ends = ['\n}\n', '\n]\n'].map((e) => SOURCE.indexOf(e, start)).filter((i) => i > start)
  if (start === -1 || ends.length === 0) throw new Error(`${name} not found in ssrf-table.test.ts`)
  return SOURCE.slice(start, Math.min(...ends))
}

/** A single-quoted JS string literal's content, escapes (`\uFF11`) decoded. */
const decodeLiteral = (literal: string): string =>
  JSON.parse(`"${literal.replaceAll('"', '\\"')}"`) as string

/** `[url template, expected egress error]`; `{p}` is the receiver's port. */
export const SSRF_CASES: Array<[string, EgressErrorCode]> = [
  ...block('CASES').matchAll(/\[\s*'([^']+)',\s*'([a-z_]+)'\s*\]/g),
].map((m) => [decodeLiteral(m[1] as string), m[2] as EgressErrorCode])

const ZONE = new Map<string, string[]>(
  [...block('ZONE').matchAll(/^\s*'?([^':\s]+)'?:\s*\[([^\]]*)\]/gm)].map((m) => [
    m[1] as string,
    [...(m[2] ?? '').matchAll(/'([^']+)'/g)].map((a) => a[1] as string),
  ]),
)

/** The table's fake DNS: its names resolve as listed, anything else fails like ENOTFOUND. */
export const zoneResolver: Resolver = async (hostname) => {
  const answers = ZONE.get(hostname)
  if (!answers)
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
  return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
}
