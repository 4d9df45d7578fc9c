import { keyProblem, type UnsafeKeyReason } from '../../infra/blobs/safe-path.ts'

export type ContentPathProblem = 'bad_encoding' | UnsafeKeyReason

export type ContentTarget =
  | { ok: true; token: string; path: string }
  | { ok: false; token: string; problem: ContentPathProblem }

const ROUTE_PREFIX = '/c/'

/**
 * Splits a raw request target `/c/{token}/{path}?query` into the token and the file path, with
 * the path's percent-escapes decoded exactly once. Read from the raw URL rather than the
 * router's params so no layer decodes twice: `%252e%252e` stays the literal name `%2e%2e`.
 * The decoded path must then be a safe blob key (`keyProblem`): no `..` or `.` segments,
 * backslashes, control characters (NUL included), empty segments (so no trailing `/`, no
 * directory listing) or leading `/`. Nothing here touches storage.
 */
export function parseContentTarget(rawUrl: string): ContentTarget {
  const query = rawUrl.indexOf('?')
  const target = query === -1 ? rawUrl : rawUrl.slice(0, query)
  const rest = target.startsWith(ROUTE_PREFIX) ? target.slice(ROUTE_PREFIX.length) : ''
  const slash = rest.indexOf('/')
  const token = slash === -1 ? rest : rest.slice(0, slash)
  const encoded = slash === -1 ? '' : rest.slice(slash + 1)
  let path: string
  try {
    path = decodeURIComponent(encoded)
  } catch {
    return { ok: false, token, problem: 'bad_encoding' }
  }
  const problem = keyProblem(path)
  return problem ? { ok: false, token, problem } : { ok: true, token, path }
}

/**
 * The blob key of `path` inside a version's folder `prefix`. Both halves are safe keys and the
 * `/` between them is always there, so the key stays under the prefix (`pv1` never reaches
 * `pv10/…` or the `pv1.zip` beside the folder). Null when the joined key is still unusable
 * (only its length can be).
 */
export function contentKey(prefix: string, path: string): string | null {
  const key = `${prefix}/${path}`
  return keyProblem(key) === null ? key : null
}
