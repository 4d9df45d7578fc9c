/**
 * Resolves manifest hrefs (with xml:base) to package paths and builds launch URLs.
 */

export type ResolvedHref =
  | {
      kind: 'file'
      /** Package path with percent-escapes decoded (how zip tools store names). */
      path: string
      /** Package path exactly as written, for the rare file whose name contains `%xx`. */
      rawPath: string
      query: string | null
      fragment: string | null
    }
  | { kind: 'external'; url: string; query: string | null; fragment: string | null }
  | { kind: 'invalid'; reason: string }

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/

function splitUrl(value: string): { path: string; query: string | null; fragment: string | null } {
  const hash = value.indexOf('#')
  const beforeHash = hash === -1 ? value : value.slice(0, hash)
  const fragment = hash === -1 ? null : value.slice(hash + 1)
  const q = beforeHash.indexOf('?')
  return {
    path: q === -1 ? beforeHash : beforeHash.slice(0, q),
    query: q === -1 ? null : beforeHash.slice(q + 1),
    fragment,
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/**
 * Joins xml:base values from the outside in. Each base is taken as a folder even without a
 * trailing slash (authoring tools often omit it and mean a folder), and a leading slash is read
 * as the package root. An absolute URL restarts the chain.
 */
export function joinBases(bases: readonly (string | undefined)[]): string {
  let joined = ''
  for (const raw of bases) {
    const base = raw?.trim()
    if (!base) continue
    const folder = base.endsWith('/') ? base : `${base}/`
    if (SCHEME.test(folder) && !/^[A-Za-z]:/.test(folder.slice(0, 2))) joined = folder
    else if (folder.startsWith('/')) joined = folder.replace(/^\/+/, '')
    else joined += folder
  }
  return joined
}

/** Resolves `href` against an already joined base into a package file or an external URL. */
export function resolveHref(base: string, href: string): ResolvedHref {
  const own = href.trim()
  if (own.startsWith('/') || own.startsWith('\\')) {
    return { kind: 'invalid', reason: 'it is an absolute path; it must be relative to the package' }
  }
  const ownScheme = SCHEME.exec(own)?.[1]
  const value = ownScheme && ownScheme.length > 1 ? own : `${base}${own}`
  const scheme = SCHEME.exec(value)?.[1]
  if (scheme && scheme.length > 1) {
    if (!/^https?$/i.test(scheme)) {
      return { kind: 'invalid', reason: `it uses the unsupported URL scheme '${scheme}:'` }
    }
    const { query, fragment } = splitUrl(value)
    const hash = value.indexOf('#')
    const q = value.indexOf('?')
    const cut = Math.min(...[hash, q].filter((i) => i !== -1), value.length)
    return { kind: 'external', url: value.slice(0, cut), query, fragment }
  }
  if (scheme) return { kind: 'invalid', reason: 'it is a Windows path with a drive letter' }
  const { path, query, fragment } = splitUrl(value)
  if (path.startsWith('/') || path.startsWith('\\')) {
    return { kind: 'invalid', reason: 'it is an absolute path; it must be relative to the package' }
  }
  const decoded: string[] = []
  const raw: string[] = []
  for (const segment of path.replace(/\\/g, '/').split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') {
      if (decoded.length === 0) return { kind: 'invalid', reason: 'it points outside the package' }
      decoded.pop()
      raw.pop()
      continue
    }
    decoded.push(decodeSegment(segment))
    raw.push(segment)
  }
  if (decoded.length === 0 || path.endsWith('/')) {
    return { kind: 'invalid', reason: 'it names a folder, not a file' }
  }
  return { kind: 'file', path: decoded.join('/'), rawPath: raw.join('/'), query, fragment }
}

/**
 * Joins an item's `parameters` to a launch URL the way the SCORM content packaging books
 * describe: leading `?` and `&` are dropped; parameters starting with `#` become the fragment
 * unless the href already has one (then they are ignored); otherwise they are added to the
 * query with `&` if the href already has a query, `?` if not. The query goes before any
 * fragment, so `page.html#top` + `a=1` gives `page.html?a=1#top`.
 */
export function applyParameters(
  query: string | null,
  fragment: string | null,
  parameters: string | null,
): { query: string | null; fragment: string | null } {
  let params = (parameters ?? '').trim().replace(/^[?&]+/, '')
  if (!params) return { query, fragment }
  if (params.startsWith('#')) {
    return { query, fragment: fragment ?? params.slice(1) }
  }
  let extraFragment: string | null = null
  const hash = params.indexOf('#')
  if (hash !== -1) {
    extraFragment = params.slice(hash + 1)
    params = params.slice(0, hash)
  }
  return {
    query: query ? `${query}&${params}` : params,
    fragment: fragment ?? extraFragment,
  }
}

/** Percent-encodes each segment of a package path, for use in a URL. */
export function encodePath(path: string): string {
  return path
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/')
}

/** Builds the launch URL of a resolved href plus item parameters. */
export function buildLaunchHref(
  resolved: Exclude<ResolvedHref, { kind: 'invalid' }>,
  parameters: string | null,
  path?: string,
): string {
  const { query, fragment } = applyParameters(resolved.query, resolved.fragment, parameters)
  const head = resolved.kind === 'external' ? resolved.url : encodePath(path ?? resolved.path)
  return `${head}${query !== null ? `?${query}` : ''}${fragment !== null ? `#${fragment}` : ''}`
}
