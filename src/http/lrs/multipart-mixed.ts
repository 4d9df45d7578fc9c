import { randomBytes } from 'node:crypto'
import { AppError } from '../../shared/app-error.ts'

export interface MimePart {
  /** Header names in lower case. */
  headers: Record<string, string>
  body: Buffer
}

/** The `boundary` parameter of a multipart Content-Type, or null. */
export function boundaryOf(contentType: string): string | null {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType)
  return match ? (match[1] ?? match[2] ?? null) : null
}

function bad(message: string): never {
  throw new AppError('validation_failed', `multipart/mixed: ${message}`)
}

function parseHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue
    const colon = line.indexOf(':')
    if (colon <= 0) bad(`malformed part header "${line.slice(0, 40)}"`)
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return headers
}

/**
 * Splits a multipart/mixed body (RFC 2046) into its parts. Tolerates LF line ends; refuses a
 * body without a closing delimiter.
 */
export function parseMultipartMixed(body: Buffer, boundary: string): MimePart[] {
  const delimiter = Buffer.from(`--${boundary}`)
  const parts: MimePart[] = []
  let at = body.indexOf(delimiter)
  if (at < 0) bad('no boundary delimiter in the body')
  for (;;) {
    let start = at + delimiter.length
    if (body.subarray(start, start + 2).toString() === '--') return parts
    if (body[start] === 0x0d) start++
    if (body[start] === 0x0a) start++
    const next = body.indexOf(delimiter, start)
    if (next < 0) bad('no closing boundary')
    let end = next
    if (body[end - 1] === 0x0a) end--
    if (body[end - 1] === 0x0d) end--
    const part = body.subarray(start, end)
    let split = part.indexOf('\r\n\r\n')
    let gap = 4
    if (split < 0) {
      split = part.indexOf('\n\n')
      gap = 2
    }
    if (split < 0) {
      // A part with headers only, or a body without headers.
      const text = part.toString('utf8')
      if (/^[\w-]+:/.test(text)) parts.push({ headers: parseHeaders(text), body: Buffer.alloc(0) })
      else parts.push({ headers: {}, body: Buffer.from(part) })
    } else {
      parts.push({
        headers: parseHeaders(part.subarray(0, split).toString('utf8')),
        body: Buffer.from(part.subarray(split + gap)),
      })
    }
    at = next
  }
}

/** Builds a multipart/mixed body; returns it with its Content-Type. */
export function buildMultipartMixed(parts: MimePart[]): { contentType: string; body: Buffer } {
  const boundary = `xapi-${randomBytes(12).toString('hex')}`
  const chunks: Buffer[] = []
  for (const part of parts) {
    const head = Object.entries(part.headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')
    chunks.push(Buffer.from(`--${boundary}\r\n${head}\r\n`), part.body, Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { contentType: `multipart/mixed; boundary=${boundary}`, body: Buffer.concat(chunks) }
}
