import { isIP } from 'node:net'
import { join, resolve } from 'node:path'

/**
 * The validated, frozen configuration. Only `src/main/*` builds it (from the environment);
 * everything else receives it as an argument.
 */
export interface Config {
  /** HOST, default 127.0.0.1 (set 0.0.0.0 in a container). */
  host: string
  /** PORT: API and dashboard origin, default 8080. */
  port: number
  /** CONTENT_PORT: player and content origin, default 8081. */
  contentPort: number
  /** PUBLIC_URL, default http://localhost:PORT. */
  publicUrl: string
  /** CONTENT_URL, default http://127.0.0.1:CONTENT_PORT — a different origin from PUBLIC_URL. */
  contentUrl: string
  /** DATA_DIR, default ./data */
  dataDir: string
  /** DATABASE_URL, default sqlite:DATA_DIR/courseport.db */
  databaseUrl: string
  /** STORAGE_URL: s3://bucket/prefix, or unset for files under DATA_DIR/blobs. */
  storageUrl: string | undefined
  s3: {
    endpoint: string | undefined
    region: string
    accessKeyId: string | undefined
    secretAccessKey: string | undefined
    forcePathStyle: boolean
  }
  /** LOG_LEVEL: fatal|error|warn|info|debug|trace|silent, default info. */
  logLevel: string
  /** TRUST_PROXY=true behind a load balancer, so client addresses come from X-Forwarded-For. */
  trustProxy: boolean
  /** SECRET_KEY (≥ 32 chars) signs upload and launch tokens; see `main/secret.ts` for the default. */
  secretKey: string
  upload: {
    /** MAX_UPLOAD_BYTES, default 1 GiB: largest zip accepted. */
    maxBytes: number
    /** UPLOAD_URL_TTL_SECONDS, default 3600: lifetime of a presigned upload URL. */
    urlTtlSeconds: number
  }
  unpack: {
    /** UNPACK_MAX_ENTRIES, default 10 000. */
    maxEntries: number
    /** UNPACK_MAX_BYTES, default 2 GiB uncompressed. */
    maxTotalBytes: number
    /** UNPACK_MAX_RATIO, default 100 (uncompressed:compressed). */
    maxRatio: number
  }
  /** RATE_LIMIT_PER_MINUTE, default 600 requests per API key per minute; 0 disables. */
  rateLimitPerMinute: number
  worker: {
    /** WORKER_CONCURRENCY, default 4. */
    concurrency: number
    /** WORKER_POLL_MS, default 1000. */
    pollMs: number
  }
  /** EVENT_FANOUT_INTERVAL seconds, default 300, minimum 1. */
  eventFanoutIntervalSeconds: number
  webhooks: {
    /** WEBHOOK_SECRET_OVERLAP_SECONDS, default 86 400 (24 h): the old secret signs this long after a rotation. */
    secretOverlapSeconds: number
    /** WEBHOOK_ENDPOINT_CONCURRENCY, default 2: deliveries in flight per endpoint, over all workers. */
    endpointConcurrency: number
    /** WEBHOOK_CONCURRENCY, default 64: requests in flight per sender run. */
    concurrency: number
    /** WEBHOOK_SENDERS, default 2: sender runs (job lanes) that may run at once across workers. */
    senders: number
    /** WEBHOOK_RETENTION_DAYS, default 30: delivered and dead-lettered deliveries kept this long. */
    retentionDays: number
  }
  /** LAUNCH_TTL_SECONDS, default 86 400 (24 h): how long a launch URL can be opened. */
  launchTtlSeconds: number
  /** Course creation from .pptx files (docs/course-creation.md). */
  conversions: {
    /**
     * OFFICE_BINARY, default `soffice` (looked up on PATH): LibreOffice, which renders each slide.
     * `none` turns rendering off; courses are then built from the presentation's text and pictures.
     */
    officeBinary: string | null
    /**
     * OFFICE_SANDBOX, default `unshare`: LibreOffice runs without network (`unshare -n`), so a
     * linked picture in an upload cannot make it call anything. `none` only where the host already
     * keeps the process off the network; without a working sandbox slides are not rendered.
     */
    officeSandbox: 'unshare' | 'none'
    /** CONVERSION_TIMEOUT_SECONDS, default 300: hard limit for rendering one deck. */
    timeoutSeconds: number
    /** CONVERSION_CONCURRENCY, default 2: decks rendered at once per process (~210-740 MB each). */
    concurrency: number
  }
  publish: {
    /** QUICK_PUBLISH_MAX_IMAGE_BYTES, default 10 MiB: largest image fetched for an image_url. */
    maxImageBytes: number
    /** DOWNLOAD_URL_TTL_SECONDS, default 86 400 (24 h): how long a signed package_url works. */
    downloadUrlTtlSeconds: number
  }
  egress: {
    /**
     * EGRESS_ALLOW_ADDRESSES: comma-separated addresses or CIDRs that every outbound request
     * (webhook deliveries, quick-publish images) may reach although private — local development
     * and tests only; cloud-metadata addresses stay blocked. Default none.
     */
    allowAddresses: readonly string[]
    /** EGRESS_CA_FILE: PEM trust roots replacing the bundled ones (tests only). Default none. */
    caFile: string | undefined
  }
  /** SHUTDOWN_TIMEOUT_MS, default 15 000: drain time on SIGTERM before forcing exit. */
  shutdownTimeoutMs: number
}

export class ConfigError extends Error {
  readonly variable: string
  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`)
    this.name = 'ConfigError'
    this.variable = variable
  }
}

type Env = Record<string, string | undefined>

function integer(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^\d+$/.test(raw.trim()))
    throw new ConfigError(name, `expected a whole number, got "${raw}"`)
  const value = Number(raw)
  if (value < min || value > max) {
    throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`)
  }
  return value
}

function url(env: Env, name: string, fallback: string): string {
  const raw = env[name] || fallback
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw new ConfigError(name, `not a valid URL: "${raw}"`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(name, `must be an http(s) URL, got "${raw}"`)
  }
  return raw.replace(/\/+$/, '')
}

function officeBinary(env: Env): string | null {
  const raw = (env.OFFICE_BINARY ?? '').trim()
  if (raw === '') return 'soffice'
  return raw === 'none' ? null : raw
}

function officeSandbox(env: Env): 'unshare' | 'none' {
  const raw = env.OFFICE_SANDBOX || 'unshare'
  if (raw !== 'unshare' && raw !== 'none') {
    throw new ConfigError('OFFICE_SANDBOX', `expected unshare or none, got "${raw}"`)
  }
  return raw
}

/** Comma-separated IP addresses or CIDRs (`127.0.0.1`, `::1`, `10.0.0.0/8`). */
function addressList(env: Env, name: string): string[] {
  const raw = env[name]
  if (!raw) return []
  const items = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  for (const item of items) {
    const [address = '', bits, ...rest] = item.split('/')
    const family = isIP(address)
    const maxBits = family === 6 ? 128 : 32
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits)
    if (family === 0 || !bitsOk || rest.length > 0) {
      throw new ConfigError(name, `"${item}" is not an IP address or CIDR`)
    }
  }
  return items
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

/** Reads and validates the configuration; throws `ConfigError` naming the bad variable. */
export function loadConfig(env: Env, defaults: { secretKey?: string } = {}): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535)
  const contentPort = integer(env, 'CONTENT_PORT', 8081, 0, 65535)
  const dataDir = resolve(env.DATA_DIR || './data')
  const databaseUrl = env.DATABASE_URL || `sqlite:${join(dataDir, 'courseport.db')}`
  if (!/^(postgres(ql)?:\/\/|sqlite:)/.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL', 'expected postgres://… or sqlite:PATH')
  }
  const storageUrl = env.STORAGE_URL || undefined
  if (storageUrl && !/^s3:\/\/[^/]+/.test(storageUrl) && !storageUrl.startsWith('file:')) {
    throw new ConfigError('STORAGE_URL', 'expected s3://bucket/prefix or file:PATH')
  }
  const logLevel = env.LOG_LEVEL || 'info'
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}`)
  }
  const secretKey = env.SECRET_KEY || defaults.secretKey || ''
  if (secretKey.length < 32) {
    throw new ConfigError('SECRET_KEY', 'must be at least 32 characters')
  }
  const publicUrl = url(env, 'PUBLIC_URL', `http://localhost:${port}`)
  const contentUrl = url(env, 'CONTENT_URL', `http://127.0.0.1:${contentPort}`)
  if (new URL(publicUrl).origin === new URL(contentUrl).origin) {
    throw new ConfigError('CONTENT_URL', 'must be a different origin from PUBLIC_URL (DESIGN §2)')
  }
  return Object.freeze({
    host: env.HOST || '127.0.0.1',
    port,
    contentPort,
    publicUrl,
    contentUrl,
    dataDir,
    databaseUrl,
    storageUrl,
    s3: Object.freeze({
      endpoint: env.AWS_ENDPOINT_URL || env.S3_ENDPOINT || undefined,
      region: env.AWS_REGION || 'us-east-1',
      accessKeyId: env.AWS_ACCESS_KEY_ID || undefined,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY || undefined,
      forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true',
    }),
    logLevel,
    trustProxy: env.TRUST_PROXY === 'true',
    secretKey,
    upload: Object.freeze({
      maxBytes: integer(env, 'MAX_UPLOAD_BYTES', 1024 ** 3, 1),
      urlTtlSeconds: integer(env, 'UPLOAD_URL_TTL_SECONDS', 3600, 60, 7 * 24 * 3600),
    }),
    unpack: Object.freeze({
      maxEntries: integer(env, 'UNPACK_MAX_ENTRIES', 10_000, 1),
      maxTotalBytes: integer(env, 'UNPACK_MAX_BYTES', 2 * 1024 ** 3, 1),
      maxRatio: integer(env, 'UNPACK_MAX_RATIO', 100, 2),
    }),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600),
    worker: Object.freeze({
      concurrency: integer(env, 'WORKER_CONCURRENCY', 4, 1, 64),
      pollMs: integer(env, 'WORKER_POLL_MS', 1000, 10),
    }),
    eventFanoutIntervalSeconds: integer(env, 'EVENT_FANOUT_INTERVAL', 300, 1),
    webhooks: Object.freeze({
      secretOverlapSeconds: integer(env, 'WEBHOOK_SECRET_OVERLAP_SECONDS', 86_400, 0, 30 * 86_400),
      endpointConcurrency: integer(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 2, 1, 32),
      concurrency: integer(env, 'WEBHOOK_CONCURRENCY', 64, 1, 1024),
      senders: integer(env, 'WEBHOOK_SENDERS', 2, 1, 64),
      retentionDays: integer(env, 'WEBHOOK_RETENTION_DAYS', 30, 1),
    }),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 15_000, 0),
    launchTtlSeconds: integer(env, 'LAUNCH_TTL_SECONDS', 86_400, 60),
    conversions: Object.freeze({
      officeBinary: officeBinary(env),
      officeSandbox: officeSandbox(env),
      timeoutSeconds: integer(env, 'CONVERSION_TIMEOUT_SECONDS', 300, 5, 3600),
      concurrency: integer(env, 'CONVERSION_CONCURRENCY', 2, 1, 32),
    }),
    publish: Object.freeze({
      maxImageBytes: integer(env, 'QUICK_PUBLISH_MAX_IMAGE_BYTES', 10 * 1024 ** 2, 1024),
      downloadUrlTtlSeconds: integer(env, 'DOWNLOAD_URL_TTL_SECONDS', 86_400, 60, 30 * 86_400),
    }),
    egress: Object.freeze({
      allowAddresses: Object.freeze(addressList(env, 'EGRESS_ALLOW_ADDRESSES')),
      caFile: env.EGRESS_CA_FILE || undefined,
    }),
  })
}
