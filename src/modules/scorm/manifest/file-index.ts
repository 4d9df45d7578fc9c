/** Looks a package path up in the zip's file list, with a hint when only the case differs. */
export class FileIndex {
  private readonly files: ReadonlySet<string> | null
  private lower: Map<string, string> | null = null

  /** `files` null skips every existence check (used when only the manifest is at hand). */
  constructor(files: Iterable<string> | null) {
    this.files = files === null ? null : new Set(files)
  }

  has(path: string): boolean {
    return this.files === null || this.files.has(path)
  }

  get checking(): boolean {
    return this.files !== null
  }

  /** A file that differs from `path` only by letter case, if any. */
  caseVariant(path: string): string | undefined {
    if (!this.files) return undefined
    if (!this.lower) {
      this.lower = new Map()
      for (const f of this.files) this.lower.set(f.toLowerCase(), f)
    }
    return this.lower.get(path.toLowerCase())
  }
}

/** " (and 2 more problems)" suffix for a refusal that lists only its first problem. */
export function moreProblems(count: number): string {
  if (count <= 0) return ''
  return ` (and ${count} more problem${count > 1 ? 's' : ''})`
}
