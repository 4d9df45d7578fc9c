import { join, resolve } from 'node:path'
import {
  addressList,
  boolean,
  ConfigError,
  contentOrigins,
  type Env,
  integer,
  metricsToken,
  officeBinary,
  officeSandbox,
  optionalPort,
  url,
} from './config-variables.ts'

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
  /**
   * CONTENT_URL, default http://localhost:CONTENT_PORT — a different origin from PUBLIC_URL, with
   * no path. With CONTENT_ORIGINS=tenant its host must be a name (not an IP address): each tenant
   * is served on `{tenant-label}.{host}` (`*.localhost` resolves to loopback in browsers).
   */
  contentUrl: string
  /**
   * CONTENT_ORIGINS, default `tenant`: every tenant's player, package files and runtime run on
   * its own origin under CONTENT_URL, and every launch, content, runtime and dispatch token is
   * valid only there (docs/content-origins.md: needs a wildcard DNS name and certificate).
   * `single` is the opt-out: all tenants share CONTENT_URL, so one tenant's course can script
   * another's player in a page that frames both — only for a deployment with a single tenant.
   */
  contentOrigins: 'tenant' | 'single'
  /**
   * DISPATCH_NEW_LEARNERS_PER_MINUTE, default 30: launches per dispatch per minute that may take
   * a new licence seat or a new learner registration (docs/dispatch.md); 0 turns the limit off.
   */
  dispatchNewLearnersPerMinute: number
  /** DATA_DIR, default ./data */
  dataDir: string
  /** DATABASE_URL, default sqlite:DATA_DIR/courseport.db */
  databaseUrl: string
  database: {
    /** DATABASE_POOL_SIZE, default 10: PostgreSQL connections per process at most. */
    poolSize: number
    /** DATABASE_CONNECT_TIMEOUT_MS, default 5 000: opening one connection may take this long. */
    connectTimeoutMs: number
    /**
     * DATABASE_STARTUP_WAIT_SECONDS, default 60: at start-up an unreachable PostgreSQL is retried
     * (with backoff) this long before the process exits non-zero; 0 tries once.
     */
    startupWaitSeconds: number
  }
  /** STORAGE_URL: s3://bucket/prefix, or unset for files under DATA_DIR/blobs. */
  storageUrl: string | undefined
  s3: {
    endpoint: string | undefined
    region: string
    accessKeyId: string | undefined
    secretAccessKey: string | undefined
    /** S3_FORCE_PATH_STYLE (a boolean, see `boolean`), default false. */
    forcePathStyle: boolean
  }
  /** LOG_LEVEL: fatal|error|warn|info|debug|trace|silent, default info. */
  logLevel: string
  /**
   * TRUST_PROXY (a boolean), default false: true behind a load balancer, so client addresses come
   * from X-Forwarded-For.
   */
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
    /**
     * JOB_LEASE_SECONDS, default 30, minimum 3: a running job's lease, renewed by a heartbeat every
     * third of it while the job runs, so a killed worker's job is taken over within this long.
     */
    leaseSeconds: number
    /** WORKER_HEALTH_PORT, default none: `courseport worker` answers /healthz and /readyz here. */
    healthPort: number | undefined
    /** WORKER_HEALTH_HOST, default 127.0.0.1: the health listener's address. */
    healthHost: string
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
  /**
   * `/metrics` (Prometheus text format, docs/operations.md "Metrics"). It is never open on the
   * public API origin: there it answers only when METRICS_TOKEN is set, and only to that token.
   */
  metrics: {
    /**
     * METRICS_TOKEN, default none (at least 32 characters): `GET /metrics` on PORT answers to
     * `Authorization: Bearer METRICS_TOKEN` (401 otherwise); unset, /metrics on PORT is 404. When
     * set it is required on METRICS_PORT and on the worker's health listener too.
     */
    token: string | undefined
    /**
     * METRICS_PORT, default none (off): a separate listener on METRICS_HOST serving only
     * /metrics, without a token unless METRICS_TOKEN is set, for a scraper on a private network.
     * `courseport worker` serves /metrics on WORKER_HEALTH_PORT as well.
     */
    port: number | undefined
    /** METRICS_HOST, default 127.0.0.1: the METRICS_PORT listener's address. */
    host: string
  }
  /** SHUTDOWN_TIMEOUT_MS, default 15 000: drain time on SIGTERM before forcing exit. */
  shutdownTimeoutMs: number
  /**
   * SHUTDOWN_DRAIN_DELAY_MS, default 3 000: after SIGTERM, /readyz answers 503 this long while the
   * listeners still accept requests, so a load balancer stops sending new ones before they close.
   * SIGINT (Ctrl-C) skips it.
   */
  shutdownDrainDelayMs: number
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

/** Reads and validates the configuration; throws `ConfigError` naming the bad variable. */
// Long on purpose: one line per setting, in one place, so every variable is read and validated
// together.
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
  const contentUrl = url(env, 'CONTENT_URL', `http://localhost:${contentPort}`)
  if (new URL(publicUrl).origin === new URL(contentUrl).origin) {
    throw new ConfigError('CONTENT_URL', 'must be a different origin from PUBLIC_URL (DESIGN §2)')
  }
  return Object.freeze({
    host: env.HOST || '127.0.0.1',
    port,
    contentPort,
    publicUrl,
    contentUrl,
    contentOrigins: contentOrigins(env, contentUrl),
    dispatchNewLearnersPerMinute: integer(env, 'DISPATCH_NEW_LEARNERS_PER_MINUTE', 30),
    dataDir,
    databaseUrl,
    database: Object.freeze({
      poolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
      connectTimeoutMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5000, 100),
      startupWaitSeconds: integer(env, 'DATABASE_STARTUP_WAIT_SECONDS', 60, 0),
    }),
    storageUrl,
    s3: Object.freeze({
      endpoint: env.AWS_ENDPOINT_URL || env.S3_ENDPOINT || undefined,
      region: env.AWS_REGION || 'us-east-1',
      accessKeyId: env.AWS_ACCESS_KEY_ID || undefined,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY || undefined,
      forcePathStyle: boolean(env, 'S3_FORCE_PATH_STYLE', false),
    }),
    logLevel,
    trustProxy: boolean(env, 'TRUST_PROXY', false),
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
      leaseSeconds: integer(env, 'JOB_LEASE_SECONDS', 30, 3, 3600),
      healthPort: optionalPort(env, 'WORKER_HEALTH_PORT'),
      healthHost: env.WORKER_HEALTH_HOST || '127.0.0.1',
    }),
    eventFanoutIntervalSeconds: integer(env, 'EVENT_FANOUT_INTERVAL', 300, 1),
    webhooks: Object.freeze({
      secretOverlapSeconds: integer(env, 'WEBHOOK_SECRET_OVERLAP_SECONDS', 86_400, 0, 30 * 86_400),
      endpointConcurrency: integer(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 2, 1, 32),
      concurrency: integer(env, 'WEBHOOK_CONCURRENCY', 64, 1, 1024),
      senders: integer(env, 'WEBHOOK_SENDERS', 2, 1, 64),
      retentionDays: integer(env, 'WEBHOOK_RETENTION_DAYS', 30, 1),
    }),
    metrics: Object.freeze({
      token: metricsToken(env),
      port: optionalPort(env, 'METRICS_PORT'),
      host: env.METRICS_HOST || '127.0.0.1',
    }),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 15_000, 0),
    shutdownDrainDelayMs: integer(env, 'SHUTDOWN_DRAIN_DELAY_MS', 3000, 0, 60_000),
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
