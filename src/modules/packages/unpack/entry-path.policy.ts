import { keyProblem } from '../../../infra/blobs/safe-path.ts'
import { AppError } from '../../../shared/app-error.ts'

export interface NormalisedEntryName {
  /** `/`-separated path relative to the package root, without `.` or empty segments. */
  path: string
  /** True for folder entries (name ending in `/`); they carry no content and are skipped. */
  directory: boolean
}

/** Shows a raw entry name safely inside an error message (control characters escaped). */
export function displayName(raw: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escaping them is the point
  const shown = raw.replace(/[\u0000-\u001f\u007f]/g, (c) => {
    if (c === '\u0000') return '\\0'
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
  })
  return shown.length > 200 ? `${shown.slice(0, 200)}…` : shown
}

function refuse(message: string, raw: string): never {
  throw new AppError('invalid_package', message, { entry: displayName(raw) })
}

/**
 * Turns a zip entry name into a safe package path, or refuses the zip.
 *
 * Backslashes are treated as folder separators (old Windows tools write them) before any check,
 * so `..\evil` is caught like `../evil`. Any `..` segment is refused, even one that would stay
 * inside the package: legitimate tools never write them and allowing some makes the check
 * harder to reason about.
 */
export function normaliseEntryName(raw: string, maxPathBytes: number): NormalisedEntryName {
  if (raw.includes('\u0000')) {
    refuse(
      `The zip contains a file name with a NUL character ('${displayName(raw)}'), which is not allowed.`,
      raw,
    )
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are refused
  if (/[\u0001-\u001f\u007f]/.test(raw)) {
    refuse(
      `The zip contains a file name with a control character ('${displayName(raw)}'). Rename the file and zip the course again.`,
      raw,
    )
  }
  const slashed = raw.replace(/\\/g, '/')
  if (/^[A-Za-z]:/.test(slashed)) {
    refuse(
      `The zip contains a path with a drive letter ('${displayName(raw)}'). Paths inside a package must be relative to the package root.`,
      raw,
    )
  }
  if (slashed.startsWith('/')) {
    refuse(
      `The zip contains an absolute path ('${displayName(raw)}'). Paths inside a package must be relative to the package root.`,
      raw,
    )
  }
  const segments = slashed.split('/')
  if (segments.includes('..')) {
    refuse(
      `The zip contains the path '${displayName(raw)}', which points outside the package (a "zip slip"). Zip the course again from inside its folder.`,
      raw,
    )
  }
  const directory = slashed.endsWith('/')
  const kept = segments.filter((s) => s !== '' && s !== '.')
  const path = kept.join('/')
  if (path === '' && !directory) {
    refuse('The zip contains an entry without a file name.', raw)
  }
  if (Buffer.byteLength(path, 'utf8') > maxPathBytes) {
    refuse(
      `The zip contains a path longer than ${maxPathBytes} bytes ('${displayName(raw)}'). Shorten the folder or file names.`,
      raw,
    )
  }
  for (const segment of kept) checkStorableSegment(segment, raw)
  return { path, directory }
}

/**
 * Refuses, during validation, a name the blob store would refuse only while storing (with its
 * internal key in the message): the store's own rule (`keyProblem`, infra/blobs/safe-path.ts)
 * applied to one segment. What it refuses beyond the checks above: a file or folder name over 255
 * UTF-8 bytes (NAME_MAX of the fs backend's filesystems) and names starting with `.cp-tmp-` (the
 * fs backend's in-flight writes). Windows device names (`CON`, `NUL`…) are not refused: both
 * backends store them, and the player serves them over HTTP, never from a Windows folder.
 */
function checkStorableSegment(segment: string, raw: string): void {
  const problem = keyProblem(segment)
  if (problem === null) return
  if (problem === 'too_long') {
    refuse(
      `The zip contains a file or folder name longer than 255 bytes ('${displayName(raw)}'). Shorten it and zip the course again.`,
      raw,
    )
  }
  if (problem === 'reserved_name') {
    refuse(
      `The zip contains the name '${displayName(segment)}' (in '${displayName(raw)}'), which starts with the reserved '.cp-tmp-'. Rename it and zip the course again.`,
      raw,
    )
  }
  refuse(`The zip contains a name that cannot be stored ('${displayName(raw)}', ${problem}).`, raw)
}

const S_IFMT = 0o170000
const S_IFLNK = 0o120000

/**
 * True when the entry's Unix mode (high 16 bits of the external attributes) marks a symbolic
 * link. Checked whatever the "made by" system says: a link is refused even from odd tools.
 */
export function isSymlink(externalFileAttributes: number): boolean {
  return ((externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK
}

/**
 * Remembers the paths seen so far and refuses duplicates, and a name used both as a file and
 * as a folder (`a` and `a/b`), which the file-system blob store could not hold side by side.
 */
export class PathRegistry {
  private readonly files = new Set<string>()
  private readonly folders = new Set<string>()

  add(path: string, raw: string): void {
    if (this.files.has(path)) {
      refuse(
        `The zip contains '${displayName(path)}' more than once. Remove the duplicate and zip the course again.`,
        raw,
      )
    }
    if (this.folders.has(path)) {
      refuse(
        `The zip contains '${displayName(path)}' both as a file and as a folder, which is not allowed.`,
        raw,
      )
    }
    let slash = path.indexOf('/')
    while (slash !== -1) {
      const folder = path.slice(0, slash)
      if (this.files.has(folder)) {
        refuse(
          `The zip contains '${displayName(folder)}' both as a file and as a folder, which is not allowed.`,
          raw,
        )
      }
      this.folders.add(folder)
      slash = path.indexOf('/', slash + 1)
    }
    this.files.add(path)
  }
}
