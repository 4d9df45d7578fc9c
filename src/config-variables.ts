import { isIP } from 'node:net'

/**
 * Reading one environment variable each: parse, check, and name the variable when it is wrong
 * (`ConfigError`). `loadConfig` (config.ts) puts them together; the secret rules here decide
 * whether a process may start without SECRET_KEY.
 */

export class ConfigError extends Error {
  readonly variable: string
  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`)
    this.name = 'ConfigError'
    this.variable = variable
  }
}

export type Env = Record<string, string | undefined>

export function integer(
  env: Env,
  name: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
) {
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

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on'])
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off'])

/** 1/0, true/false, yes/no, on/off in any case; anything else stops start-up naming `name`. */
export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]
  if (raw === undefined || raw.trim() === '') return fallback
  const word = raw.trim().toLowerCase()
  if (TRUE_WORDS.has(word)) return true
  if (FALSE_WORDS.has(word)) return false
  throw new ConfigError(name, `expected true/false (also 1/0, yes/no, on/off), got "${raw}"`)
}

export function optionalPort(env: Env, name: string): number | undefined {
  const raw = env[name]
  if (raw === undefined || raw === '') return undefined
  return integer(env, name, 0, 0, 65535)
}

/** What kind of process loads the configuration: it decides whether SECRET_KEY may be made up. */
export type ProcessRole = 'serve' | 'api' | 'worker' | 'admin'

/**
 * Why this deployment needs an explicit SECRET_KEY, or null when a secret kept under DATA_DIR
 * will do. Tokens signed by one process are verified by others, so every process of a
 * multi-process deployment must share one key; a made-up key per process breaks them silently.
 * Only the zero-setup default (SQLite and local disk, `serve` with its own worker) may go without.
 */
export function explicitSecretReason(env: Env, role: ProcessRole): string | null {
  if (role === 'admin') return null
  if (/^postgres(ql)?:\/\//.test(env.DATABASE_URL ?? '')) return 'DATABASE_URL is PostgreSQL'
  if ((env.STORAGE_URL ?? '').startsWith('s3:')) return 'STORAGE_URL is S3'
  if (role === 'api') return 'this is `serve --no-worker`'
  if (role === 'worker') return 'this is a separate `worker` process'
  return null
}

/** The ConfigError for a missing SECRET_KEY, saying why and how to make one. */
export function missingSecretError(reason: string): ConfigError {
  return new ConfigError(
    'SECRET_KEY',
    `must be set, to the same value on every process, because ${reason} ` +
      '(generate one with: openssl rand -hex 32)',
  )
}

export function url(env: Env, name: string, fallback: string): string {
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

export function contentOrigins(env: Env, contentUrl: string): 'tenant' | 'single' {
  const raw = env.CONTENT_ORIGINS || 'tenant'
  if (raw !== 'tenant' && raw !== 'single') {
    throw new ConfigError('CONTENT_ORIGINS', `expected tenant or single, got "${raw}"`)
  }
  const url = new URL(contentUrl)
  if (
    raw === 'tenant' &&
    (isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0 || url.pathname !== '/')
  ) {
    throw new ConfigError(
      'CONTENT_URL',
      `with CONTENT_ORIGINS=tenant it must be a host name with no path (tenants get {label}.host), got "${contentUrl}"; use e.g. http://localhost:8081, or CONTENT_ORIGINS=single`,
    )
  }
  return raw
}

export function officeBinary(env: Env): string | null {
  const raw = (env.OFFICE_BINARY ?? '').trim()
  if (raw === '') return 'soffice'
  return raw === 'none' ? null : raw
}

export function officeSandbox(env: Env): 'unshare' | 'none' {
  const raw = env.OFFICE_SANDBOX || 'unshare'
  if (raw !== 'unshare' && raw !== 'none') {
    throw new ConfigError('OFFICE_SANDBOX', `expected unshare or none, got "${raw}"`)
  }
  return raw
}

/** Comma-separated IP addresses or CIDRs (`127.0.0.1`, `::1`, `10.0.0.0/8`). */
export function addressList(env: Env, name: string): string[] {
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

/** A scraper's credential: long enough not to be guessed, one line, no spaces. */
export function metricsToken(env: Env): string | undefined {
  const raw = env.METRICS_TOKEN
  if (raw === undefined || raw === '') return undefined
  if (raw.length < 32 || !/^[\x21-\x7e]+$/.test(raw)) {
    throw new ConfigError(
      'METRICS_TOKEN',
      'must be at least 32 printable characters without spaces (generate one with: openssl rand -hex 32)',
    )
  }
  return raw
}
