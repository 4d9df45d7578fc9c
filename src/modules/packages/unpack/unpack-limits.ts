/**
 * Limits applied while reading an uploaded zip. Every limit is checked twice: against the sizes
 * the zip declares (before any byte is written) and against the bytes actually decompressed
 * (so a zip that lies in its headers is still stopped).
 */
export interface UnpackLimits {
  /** Most entries (files and folders) in the zip. Default 10 000. */
  maxEntries: number
  /** Most uncompressed bytes over all files. Default 2 GiB. */
  maxTotalBytes: number
  /** Most uncompressed bytes in one file. Default 1 GiB. */
  maxFileBytes: number
  /** Highest uncompressed : compressed ratio of one entry. Default 100 (100:1). */
  maxEntryRatio: number
  /** Highest ratio of all uncompressed bytes to the size of the zip file. Default 100. */
  maxTotalRatio: number
  /**
   * Ratios are only checked once an entry (or the whole package) is larger than this, because
   * small text files legitimately compress very well. Default 1 MiB.
   */
  ratioFloorBytes: number
  /** Longest path of an entry, in UTF-8 bytes (S3 keys are limited to 1024). Default 512. */
  maxPathBytes: number
}

const MiB = 1024 * 1024
const GiB = 1024 * MiB

export const DEFAULT_UNPACK_LIMITS: Readonly<UnpackLimits> = Object.freeze({
  maxEntries: 10_000,
  maxTotalBytes: 2 * GiB,
  maxFileBytes: 1 * GiB,
  maxEntryRatio: 100,
  maxTotalRatio: 100,
  ratioFloorBytes: 1 * MiB,
  maxPathBytes: 512,
})

/**
 * Fills the limits the caller did not set with the defaults. Rejects nonsense values and
 * unknown names (a config key passed through unmapped would otherwise be silently ignored).
 */
export function resolveUnpackLimits(overrides: Partial<UnpackLimits> = {}): UnpackLimits {
  for (const key of Object.keys(overrides)) {
    if (!Object.hasOwn(DEFAULT_UNPACK_LIMITS, key)) {
      throw new TypeError(`unknown unpack limit ${key}`)
    }
  }
  const limits = { ...DEFAULT_UNPACK_LIMITS }
  for (const key of Object.keys(DEFAULT_UNPACK_LIMITS) as (keyof UnpackLimits)[]) {
    const value = overrides[key]
    if (value === undefined) continue
    if (typeof value !== 'number' || !(value >= 0) || Number.isNaN(value)) {
      throw new TypeError(`unpack limit ${key} must be a non-negative number, got ${value}`)
    }
    limits[key] = value
  }
  return limits
}

/** Sizes as course authors read them in their file manager (1024-based, "MB"/"GB"). */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  if (unit === 0) return `${bytes} bytes`
  const rounded = value >= 10 ? Math.round(value) : Math.round(value * 10) / 10
  return `${rounded} ${units[unit]}`
}
