import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { crc32, deflateSync } from 'node:zlib'
import { createSlideRenderer, type SlideRenderer } from '../../../src/infra/office/index.ts'
import { readZip } from '../../unit/publish/course-zip.helper.ts'
import { type Entries, writeZip } from '../conversions/pptx-builder.helper.ts'

export const PPTX = new URL('../../../../shared/fixtures/pptx/', import.meta.url).pathname

/** A renderer as production builds it (sandboxed, hardened), with a test-sized timeout. */
export function testRenderer(
  overrides: Partial<Parameters<typeof createSlideRenderer>[0]> = {},
): SlideRenderer {
  return createSlideRenderer({
    binary: 'soffice',
    sandbox: 'unshare',
    timeoutSeconds: 120,
    concurrency: 2,
    searchPath: process.env.PATH,
    ...overrides,
  })
}

/**
 * Whether LibreOffice rendering can run here. Absent, tests that need it are skipped with the
 * reason printed, except with CI=true, where its absence is an error (a broken CI image must
 * not pass by skipping).
 */
export async function officeSkipReason(): Promise<string | undefined> {
  const availability = await testRenderer().availability()
  if (availability.available) return undefined
  const reason = `LibreOffice rendering unavailable: ${availability.reason}`
  if (process.env.CI === 'true') throw new Error(`${reason}; CI=true requires it`)
  process.stderr.write(`# ${reason}; rendering tests skipped\n`)
  return reason
}

/** Copies a .pptx, changing parts: `edit(name, bytes)` returns new bytes, or undefined to keep. */
export async function rewritePptx(
  source: string,
  dest: string,
  edit: (name: string, data: Buffer) => Buffer | string | undefined,
): Promise<string> {
  const entries: Entries = {}
  for (const [name, data] of await readZip(source)) entries[name] = edit(name, data) ?? data
  return writeZip(dest, entries)
}

/** oxs_linkedpicture.pptx with its external picture link pointed at `target`. */
export function linkedPictureDeck(dest: string, target: string): Promise<string> {
  return rewritePptx(`${PPTX}oxs_linkedpicture.pptx`, dest, (name, data) =>
    name.endsWith('.rels') && data.includes('TargetMode="External"')
      ? data.toString('utf8').replace(/Target="http[^"]*"/, `Target="${target}"`)
      : undefined,
  )
}

/** oxs_typical.pptx (15 slides) with the given slides marked hidden. */
export function hiddenSlidesDeck(dest: string, hidden: number[]): Promise<string> {
  return rewritePptx(`${PPTX}oxs_typical.pptx`, dest, (name, data) => {
    const n = /^ppt\/slides\/slide(\d+)\.xml$/.exec(name)?.[1]
    if (!n || !hidden.includes(Number(n))) return undefined
    return data.toString('utf8').replace('<p:sld ', '<p:sld show="0" ')
  })
}

/** A plain HTTP server on 127.0.0.1 that records every request (SSRF probes). */
export async function startProbeServer(): Promise<{
  url: string
  hits: string[]
  close(): Promise<void>
}> {
  const hits: string[] = []
  const server: Server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`)
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Processes (pid, command line) whose command line or working directory mentions `needle`. */
export function processesMentioning(needle: string): Array<{ pid: number; cmd: string }> {
  const found: Array<{ pid: number; cmd: string }> = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ')
      let cwd = ''
      try {
        cwd = readlinkSync(`/proc/${entry}/cwd`)
      } catch {}
      if (cmd.includes(needle) || cwd.includes(needle)) found.push({ pid: Number(entry), cmd })
    } catch {
      // the process ended while we looked
    }
  }
  return found
}

/** A solid PNG of the given size (e.g. an unusual size, recognisable in a PDF). */
export function solidPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const len = Buffer.alloc(4)
    len.writeUInt32BE(data.length)
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(body))
    return Buffer.concat([len, body, crc])
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr.set([8, 2, 0, 0, 0], 8)
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0xc8)])
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(Array.from({ length: height }, () => row)))),
    chunk('IEND', Buffer.alloc(0)),
  ])
}
