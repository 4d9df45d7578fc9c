import { lstat, mkdir, realpath } from 'node:fs/promises'
import { basename, dirname, join, relative, sep } from 'node:path'
import { AppError } from '../../shared/app-error.ts'

/**
 * Temp files of in-flight fs writes are named `.cp-tmp-…` in the target's own directory (so the
 * final rename stays on one filesystem). Keys may not use that name, so a temp file can never be
 * mistaken for, or clobber, a stored object.
 */
export const TEMP_PREFIX = '.cp-tmp-'

/** S3's own limit; also keeps every fs path well under PATH_MAX. */
export const MAX_KEY_BYTES = 1024
const MAX_SEGMENT_BYTES = 255

export type UnsafeKeyReason =
  | 'empty'
  | 'too_long'
  | 'absolute'
  | 'backslash'
  | 'control_character'
  | 'empty_segment'
  | 'dot_segment'
  | 'reserved_name'
  | 'escapes_root'

function segmentProblem(segment: string): UnsafeKeyReason | null {
  if (segment === '') return 'empty_segment'
  if (segment === '.' || segment === '..') return 'dot_segment'
  if (segment.startsWith(TEMP_PREFIX)) return 'reserved_name'
  if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) return 'too_long'
  return null
}

function characterProblem(value: string): UnsafeKeyReason | null {
  if (value.includes('\\')) return 'backslash'
  // NUL truncates paths in C APIs; other C0 controls cannot travel in S3's XML listings.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'control_character'
  return null
}

/**
 * Why `key` is not an acceptable blob key, or null when it is. A key is a `/`-separated
 * relative path of non-empty segments, none `.`, `..` or reserved, without backslashes or
 * control characters, at most 1024 UTF-8 bytes. Both backends apply the same rule, so a key
 * accepted by one is accepted by the other.
 */
export function keyProblem(key: string): UnsafeKeyReason | null {
  if (key === '') return 'empty'
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) return 'too_long'
  if (key.startsWith('/') || /^[A-Za-z]:/.test(key)) return 'absolute'
  const chars = characterProblem(key)
  if (chars) return chars
  for (const segment of key.split('/')) {
    const problem = segmentProblem(segment)
    if (problem) return problem
  }
  return null
}

function unsafe(kind: 'key' | 'prefix', value: string, reason: UnsafeKeyReason): AppError {
  return new AppError(
    'invalid_request',
    `Unsafe blob ${kind} (${reason}): ${JSON.stringify(value)}`,
    {
      [kind]: value,
      reason,
    },
  )
}

/** Throws AppError `invalid_request` (details: `{ key, reason }`) unless `key` is safe. */
export function assertSafeKey(key: string): void {
  const problem = keyProblem(key)
  if (problem) throw unsafe('key', key, problem)
}

/**
 * A listing/deletion prefix is a string prefix of keys (as in S3): `a/b` matches `a/b/c` and
 * `a/bc`. Its directory part (up to the last `/`) must be a safe key; the rest is only a
 * filter on names and may be partial. Returns both parts. The empty prefix is allowed here.
 */
export function splitSafePrefix(prefix: string): { dir: string; namePrefix: string } {
  if (prefix.startsWith('/')) throw unsafe('prefix', prefix, 'absolute')
  if (Buffer.byteLength(prefix) > MAX_KEY_BYTES) throw unsafe('prefix', prefix, 'too_long')
  const chars = characterProblem(prefix)
  if (chars) throw unsafe('prefix', prefix, chars)
  const cut = prefix.lastIndexOf('/')
  const dir = cut === -1 ? '' : prefix.slice(0, cut)
  if (cut !== -1) {
    const problem = keyProblem(dir)
    if (problem) throw unsafe('prefix', prefix, problem)
  }
  return { dir, namePrefix: prefix.slice(cut + 1) }
}

function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate)
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep))
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

/** Real path of the deepest existing ancestor of `path` (at or below `realRoot`). */
async function realDeepestExisting(
  realRoot: string,
  path: string,
): Promise<{ real: string; exact: boolean }> {
  let current = path
  for (;;) {
    try {
      return { real: await realpath(current), exact: current === path }
    } catch (err) {
      if (!isMissing(err) || current === realRoot) throw err
      current = dirname(current)
    }
  }
}

export interface ResolveOptions {
  /** Create missing parent directories (for writes), after checking nothing escapes. Default false. */
  createParents?: boolean
  /**
   * Return the directory entry itself even when it is a symlink (for renames and unlinks, which
   * act on the link, not through it). Implied by `createParents`. Default false.
   */
  entry?: boolean
}

/**
 * Maps `key` to an absolute path under `root` (the empty key means the root itself, used by
 * listings). Refuses unsafe keys, then resolves symlinks on the way: the deepest existing
 * ancestor and, when it exists, the target itself must really be inside the root's real path.
 * The returned path is the real target when it exists (so a reader opens what was checked; with
 * `entry`, the entry itself, which a rename or unlink acts on), else the real parent joined with the last segment (or the lexical path if the parent is
 * missing and `createParents` is off).
 */
export async function resolveSafePath(
  root: string,
  key: string,
  options: ResolveOptions = {},
): Promise<string> {
  if (key !== '') assertSafeKey(key)
  const realRoot = await realpath(root)
  const segments = key === '' ? [] : key.split('/')
  const lexical = join(realRoot, ...segments)
  if (segments.length === 0) return realRoot
  const parent = dirname(lexical)

  const ancestor = await realDeepestExisting(realRoot, parent)
  if (!isInside(realRoot, ancestor.real)) throw unsafe('key', key, 'escapes_root')
  let realParent: string | null = ancestor.exact ? ancestor.real : null
  if (realParent === null && options.createParents) {
    await mkdir(parent, { recursive: true })
    realParent = await realpath(parent)
    if (!isInside(realRoot, realParent)) throw unsafe('key', key, 'escapes_root')
  }
  if (realParent === null) return lexical

  const candidate = join(realParent, basename(lexical))
  let target: string
  try {
    target = await realpath(candidate)
  } catch (err) {
    if (!isMissing(err)) throw err
    // A dangling symlink must not become a way to create or read a file elsewhere.
    const link = await lstat(candidate).catch(() => null)
    if (link?.isSymbolicLink()) throw unsafe('key', key, 'escapes_root')
    return candidate
  }
  if (!isInside(realRoot, target)) throw unsafe('key', key, 'escapes_root')
  // A write renames over the entry itself (a link is replaced, never written through).
  return options.createParents || options.entry ? candidate : target
}
