import { readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Worker, type WorkerLogger } from '../../../src/infra/queue/index.ts'
import { taskRegistry } from '../../../src/jobs/registry.ts'
import type { Clock } from '../../../src/shared/clock.ts'
import { bearer, createTestApp, type TestApp } from '../../helpers/app.ts'
import type { TestDatabase } from '../../helpers/database.ts'
import { multipartFile } from '../../helpers/multipart.ts'
import { readZip } from '../../unit/publish/course-zip.helper.ts'

export const PPTX = new URL('../../../../shared/fixtures/pptx/', import.meta.url).pathname

export const silentLogger: WorkerLogger = { info() {}, warn() {}, error() {} }

/** One row of fixtures/pptx/README.md. */
export interface FixtureRow {
  file: string
  slides: number | null
  hidden: number | null
  expect: 'ok' | 'fail'
}

export function fixtureRows(): FixtureRow[] {
  const rows: FixtureRow[] = []
  for (const line of readFileSync(`${PPTX}README.md`, 'utf8').split('\n')) {
    const cells = line.split('|').map((c) => c.trim())
    const file = /^`(.+)`$/.exec(cells[1] ?? '')?.[1]
    if (!file) continue
    const num = (s: string | undefined) => (s && /^\d+$/.test(s) ? Number(s) : null)
    rows.push({
      file,
      slides: num(cells[3]),
      hidden: num(cells[4]),
      expect: cells[6] === 'ok' ? 'ok' : 'fail',
    })
  }
  return rows
}

export function postConversion(
  t: TestApp,
  key: string,
  file: Buffer | string,
  options: {
    filename?: string
    fields?: Record<string, string>
    headers?: Record<string, string>
  } = {},
) {
  const bytes = typeof file === 'string' ? readFileSync(file) : file
  const filename =
    options.filename ?? (typeof file === 'string' ? file.split('/').pop() : 'deck.pptx')
  const { payload, headers } = multipartFile(bytes, { filename, fields: options.fields })
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/conversions',
    payload,
    headers: { ...headers, ...bearer(key), ...options.headers },
  })
}

export async function getConversion(t: TestApp, key: string, id: string) {
  const res = await t.app.inject({ url: `/api/v1/conversions/${id}`, headers: bearer(key) })
  return res.json()
}

/** Runs every due job (conversions included) in this process; returns how many ran. */
export function runJobs(t: TestApp, clock?: Clock): Promise<number> {
  const worker = new Worker(t.ctx.db, taskRegistry(t.ctx), {
    logger: silentLogger,
    concurrency: 2,
    clock,
  })
  return worker.runOnce()
}

/** The package's zip as the API serves it, entry by entry. */
export async function downloadPackage(t: TestApp, key: string, packageId: string) {
  const res = await t.app.inject({
    url: `/api/v1/packages/${packageId}/download`,
    headers: bearer(key),
  })
  if (res.statusCode !== 200) throw new Error(`download ${res.statusCode}: ${res.body}`)
  const dir = await mkdtemp(join(tmpdir(), 'cp-pkg-'))
  try {
    await writeFile(join(dir, 'p.zip'), res.rawPayload)
    return { zip: res.rawPayload, files: await readZip(join(dir, 'p.zip')) }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
}

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code =
        e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1))
      return String.fromCodePoint(code)
    }
    return ENTITIES[e] ?? m
  })
}

export const squash = (s: string) => s.replace(/\s+/g, ' ').trim()

/** The text a reader (or a screen reader) gets from the page: tags dropped, entities decoded. */
export function pageText(html: string): string {
  return squash(decodeEntities(html.replace(/<[^>]*>/g, ' ')))
}

/**
 * Every `<a:t>` of a slide's raw XML except date, footer and slide-number placeholders (a
 * course shows its own counter): an oracle independent of the OOXML reader.
 */
export function rawSlideTexts(xml: string): string[] {
  const withoutFooters = xml.replace(
    /<p:sp>(?:(?!<\/p:sp>)[\s\S])*?<p:ph type="(?:dt|ftr|sldNum)"[\s\S]*?<\/p:sp>/g,
    '',
  )
  const out: string[] = []
  for (const m of withoutFooters.matchAll(/<a:t(?:\s[^>]*)?>([^<]*)<\/a:t>/g)) {
    const t = decodeEntities(m[1] ?? '')
    if (t.trim() !== '') out.push(squash(t))
  }
  return out
}

/** A test app listening on real loopback ports (both origins), for Chromium. */
export async function createListeningApp(
  database: TestDatabase,
  env: Record<string, string> = {},
): Promise<TestApp & { publicUrl: string }> {
  const free = () =>
    new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as AddressInfo
        s.close(() => resolve(port))
      })
    })
  const [api, content] = [await free(), await free()]
  const publicUrl = `http://127.0.0.1:${api}`
  const t = await createTestApp(database, {
    env: { PUBLIC_URL: publicUrl, CONTENT_URL: `http://127.0.0.1:${content}`, ...env },
  })
  await t.app.listen({ port: api, host: '127.0.0.1' })
  await t.content.listen({ port: content, host: '127.0.0.1' })
  return Object.assign(t, { publicUrl })
}

/** The configuration createTestApp uses, for processes that join a test app's data. */
export const TEST_APP_ENV: Record<string, string> = {
  SECRET_KEY: 'test-secret-key-test-secret-key-0123456789',
  LOG_LEVEL: 'silent',
  PUBLIC_URL: 'http://127.0.0.1:18080',
  CONTENT_URL: 'http://127.0.0.1:18081',
  CONTENT_ORIGINS: 'single',
}
