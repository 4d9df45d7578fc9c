import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A reverse proxy on 127.0.0.1 that checks AWS Signature Version 4 the way S3 does, in front of a
 * store that accepts any signature (s3rver). Both forms are checked: the `Authorization` header
 * and query-string authentication (presigned URLs: X-Amz-Algorithm, -Credential, -Date, -Expires,
 * -SignedHeaders, -Signature). A request whose signature does not match what it actually sends
 * (a signed header missing or different, a changed query, an expired URL) gets S3's 403
 * `SignatureDoesNotMatch` / `AccessDenied` and never reaches the store.
 */
export interface SigV4Proxy {
  url: string
  /** Requests refused so far, with the reason (for assertions and debugging). */
  refusals: string[]
  close(): Promise<void>
}

export interface SigV4ProxyOptions {
  upstream: string
  accessKeyId: string
  secretAccessKey: string
  region?: string
  /** Default: Date.now (expiry and clock-skew checks). */
  now?: () => number
}

const ALGORITHM = 'AWS4-HMAC-SHA256'

/** RFC 3986 percent-encoding, as SigV4 requires (encodeURIComponent leaves !'()* alone). */
function encode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  )
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest()
}

function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex')
}

/** S3 does not normalise the path: each segment decoded once and encoded again. */
function canonicalUri(path: string): string {
  return path
    .split('/')
    .map((segment) => encode(decodeURIComponent(segment)))
    .join('/')
}

function canonicalQuery(params: URLSearchParams, without: string | null): string {
  const pairs: [string, string][] = []
  for (const [key, value] of params) {
    if (key !== without) pairs.push([encode(key), encode(value)])
  }
  pairs.sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
  return pairs.map(([k, v]) => `${k}=${v}`).join('&')
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const raw = req.headers[name]
  if (raw === undefined) return undefined
  const joined = Array.isArray(raw) ? raw.join(',') : raw
  return joined.trim().replace(/\s+/g, ' ')
}

interface Parsed {
  credential: string
  amzDate: string
  signedHeaders: string[]
  signature: string
  payloadHash: string
  /** Query parameter excluded from the canonical query (the signature itself), if any. */
  excluded: string | null
  expiresSeconds: number | null
}

function parseAuth(req: IncomingMessage, url: URL): Parsed | string {
  const q = url.searchParams
  if (q.has('X-Amz-Signature')) {
    if (q.get('X-Amz-Algorithm') !== ALGORITHM) return 'unsupported X-Amz-Algorithm'
    return {
      credential: q.get('X-Amz-Credential') ?? '',
      amzDate: q.get('X-Amz-Date') ?? '',
      signedHeaders: (q.get('X-Amz-SignedHeaders') ?? '').split(';'),
      signature: q.get('X-Amz-Signature') ?? '',
      payloadHash: q.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD',
      excluded: 'X-Amz-Signature',
      expiresSeconds: Number(q.get('X-Amz-Expires') ?? 'NaN'),
    }
  }
  const auth = headerValue(req, 'authorization')
  if (!auth) return 'no Authorization header or query-string signature'
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^,]+), ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      auth,
    )
  if (!match) return 'malformed Authorization header'
  return {
    credential: match[1] ?? '',
    amzDate: headerValue(req, 'x-amz-date') ?? '',
    signedHeaders: (match[2] ?? '').split(';'),
    signature: match[3] ?? '',
    payloadHash: headerValue(req, 'x-amz-content-sha256') ?? '',
    excluded: null,
    expiresSeconds: null,
  }
}

function amzDateMs(amzDate: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate)
  if (!m) return Number.NaN
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as number[]
  return Date.UTC(year ?? 0, (month ?? 1) - 1, day, hour, minute, second)
}

/** Null when the request is signed correctly, else why not. */
function verify(req: IncomingMessage, options: SigV4ProxyOptions): string | null {
  const url = new URL(req.url ?? '/', 'http://proxy.invalid')
  const parsed = parseAuth(req, url)
  if (typeof parsed === 'string') return parsed
  const [accessKeyId, date, region, service, terminator, ...extra] = parsed.credential.split('/')
  if (accessKeyId !== options.accessKeyId) return 'unknown access key'
  if (extra.length > 0 || terminator !== 'aws4_request' || service !== 's3') return 'bad scope'
  if (region !== (options.region ?? 'us-east-1')) return `wrong region ${region}`
  if (!parsed.amzDate.startsWith(date ?? '-')) return 'credential date is not the request date'
  if (!parsed.signedHeaders.includes('host')) return 'host is not signed'
  const signedAt = amzDateMs(parsed.amzDate)
  const now = (options.now ?? Date.now)()
  if (Number.isNaN(signedAt)) return 'bad X-Amz-Date'
  if (parsed.expiresSeconds !== null) {
    const expires = parsed.expiresSeconds
    if (!Number.isInteger(expires) || expires < 1 || expires > 604_800) return 'bad X-Amz-Expires'
    if (now > signedAt + expires * 1000) return 'Request has expired'
  } else if (Math.abs(now - signedAt) > 15 * 60_000) {
    return 'RequestTimeTooSkewed'
  }
  const headers = parsed.signedHeaders.map((name) => {
    const value = headerValue(req, name)
    return `${name}:${value ?? ''}\n`
  })
  const missing = parsed.signedHeaders.filter((name) => headerValue(req, name) === undefined)
  if (missing.length > 0) return `signed header(s) not sent: ${missing.join(', ')}`
  const canonicalRequest = [
    req.method ?? 'GET',
    canonicalUri(url.pathname),
    canonicalQuery(url.searchParams, parsed.excluded),
    headers.join(''),
    parsed.signedHeaders.join(';'),
    parsed.payloadHash,
  ].join('\n')
  const scope = [date, region, service, terminator].join('/')
  const stringToSign = [ALGORITHM, parsed.amzDate, scope, sha256Hex(canonicalRequest)].join('\n')
  let key = hmac(`AWS4${options.secretAccessKey}`, date ?? '')
  key = hmac(key, region ?? '')
  key = hmac(key, service ?? '')
  key = hmac(key, 'aws4_request')
  const expected = Buffer.from(hmac(key, stringToSign).toString('hex'))
  const given = Buffer.from(parsed.signature)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return 'SignatureDoesNotMatch'
  }
  return null
}

function refuse(res: ServerResponse, reason: string): void {
  const code = reason === 'Request has expired' ? 'AccessDenied' : 'SignatureDoesNotMatch'
  const body =
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code>` +
    `<Message>${reason.replace(/[<&]/g, '')}</Message></Error>`
  res.writeHead(403, {
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(body),
  })
  res.end(body)
}

export async function startSigV4Proxy(options: SigV4ProxyOptions): Promise<SigV4Proxy> {
  const upstream = new URL(options.upstream)
  const refusals: string[] = []
  const server: Server = createServer((req, res) => {
    const problem = verify(req, options)
    if (problem) {
      refusals.push(`${req.method} ${req.url?.split('?')[0]}: ${problem}`)
      req.resume()
      refuse(res, problem)
      return
    }
    const forwarded = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    forwarded.on('error', () => res.destroy())
    req.pipe(forwarded)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    refusals,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
