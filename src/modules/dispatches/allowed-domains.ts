/**
 * The domain allowlist of a dispatch (docs/dispatch.md, "Domain rules"). Pure: no I/O.
 *
 * A rule is a host name, optionally with `*.` in front (any subdomain, at any depth, but not
 * the domain itself), a scheme (`https://…`: only that scheme; without one, http and https)
 * and a port (`:8443`: only that port; without one, any port). Host names are compared after
 * the URL parser's normalisation: lower case, IDN as punycode, no trailing dot.
 */

export interface DomainRule {
  scheme: 'http' | 'https' | null
  host: string
  wildcard: boolean
  port: string | null
}

export type RuleResult =
  | { ok: true; rule: DomainRule; canonical: string }
  | { ok: false; problem: string }

/** The most rules one dispatch may carry. */
export const MAX_DOMAIN_RULES = 100

const DEFAULT_PORT: Record<'http' | 'https', string> = { http: '80', https: '443' }

function stripDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host
}

function isIpHost(host: string): boolean {
  return host.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(host)
}

/** Parses and normalises one rule as a user typed it. */
export function parseDomainRule(input: string): RuleResult {
  let text = input.trim()
  if (!text) return { ok: false, problem: 'is empty' }
  const schemeMatch = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)
  const scheme = schemeMatch?.[1]?.toLowerCase() ?? null
  if (scheme !== null && scheme !== 'http' && scheme !== 'https') {
    return { ok: false, problem: 'may only use the http or https scheme' }
  }
  if (schemeMatch) text = text.slice(schemeMatch[0].length)
  if (text.endsWith('/')) text = text.slice(0, -1)
  const wildcard = text.startsWith('*.')
  if (wildcard) text = text.slice(2)
  if (/[*/?#@\\\s]/.test(text)) {
    return { ok: false, problem: 'must be a host name, optionally *.-prefixed, scheme and port' }
  }
  let url: URL
  try {
    url = new URL(`${scheme ?? 'https'}://${text}`)
  } catch {
    return { ok: false, problem: 'is not a valid host name' }
  }
  const host = stripDot(url.hostname)
  if (!host) return { ok: false, problem: 'is not a valid host name' }
  // The URL parser drops a default port; keep what the user wrote when it was explicit.
  const explicitPort = /:(\d+)$/.exec(text)?.[1] ?? null
  const port = explicitPort === null ? null : String(Number(explicitPort))
  if (wildcard) {
    if (isIpHost(host)) return { ok: false, problem: 'cannot put *. in front of an IP address' }
    if (!host.includes('.')) {
      return { ok: false, problem: 'cannot put *. in front of a top-level domain' }
    }
  }
  const rule: DomainRule = { scheme: scheme as DomainRule['scheme'], host, wildcard, port }
  return { ok: true, rule, canonical: formatDomainRule(rule) }
}

export function formatDomainRule(rule: DomainRule): string {
  return `${rule.scheme ? `${rule.scheme}://` : ''}${rule.wildcard ? '*.' : ''}${rule.host}${
    rule.port ? `:${rule.port}` : ''
  }`
}

/**
 * Normalises a list of rules (duplicates removed, order kept). Throws nothing: problems are
 * returned with the offending entry so the API can name it.
 */
export function normaliseDomainRules(
  inputs: readonly string[],
):
  | { ok: true; rules: string[] }
  | { ok: false; problems: Array<{ entry: string; problem: string }> } {
  const rules: string[] = []
  const problems: Array<{ entry: string; problem: string }> = []
  if (inputs.length > MAX_DOMAIN_RULES) {
    return {
      ok: false,
      problems: [{ entry: '', problem: `at most ${MAX_DOMAIN_RULES} entries are allowed` }],
    }
  }
  for (const entry of inputs) {
    const parsed = parseDomainRule(entry)
    if (!parsed.ok) problems.push({ entry, problem: parsed.problem })
    else if (!rules.includes(parsed.canonical)) rules.push(parsed.canonical)
  }
  return problems.length ? { ok: false, problems } : { ok: true, rules }
}

/** An origin as browsers report it (`event.origin`): `scheme://host[:port]`, or 'null'. */
export interface ParsedOrigin {
  scheme: 'http' | 'https'
  host: string
  port: string
}

export function parseOrigin(origin: string): ParsedOrigin | null {
  if (!origin || origin === 'null') return null
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return null
  }
  const scheme = url.protocol.slice(0, -1)
  if (scheme !== 'http' && scheme !== 'https') return null
  // event.origin is already serialised exactly like this; anything else did not come from it.
  if (url.origin !== origin) return null
  return { scheme, host: stripDot(url.hostname), port: url.port || DEFAULT_PORT[scheme] }
}

export function ruleMatches(rule: DomainRule, origin: ParsedOrigin): boolean {
  if (rule.scheme && rule.scheme !== origin.scheme) return false
  if (rule.port && rule.port !== origin.port) return false
  // Label boundary: *.example.com matches a.example.com, never badexample.com.
  return rule.wildcard ? origin.host.endsWith(`.${rule.host}`) : origin.host === rule.host
}

/**
 * Whether a launch from `origin` is allowed by the stored rules. No rules: every real origin.
 * An opaque origin ('null': sandboxed frames, file://) never is, since nothing could be answered
 * to it safely.
 */
export function originAllowed(origin: string, storedRules: readonly string[]): boolean {
  const parsed = parseOrigin(origin)
  if (!parsed) return false
  if (storedRules.length === 0) return true
  return storedRules.some((text) => {
    const rule = parseDomainRule(text)
    return rule.ok && ruleMatches(rule.rule, parsed)
  })
}
