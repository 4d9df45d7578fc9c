import type { ManifestSummary } from '../../scorm/manifest/manifest.types.ts'
import { detectPackageLayout, summarisePackage } from '../../scorm/manifest/package-manifest.ts'
import { decodeXmlBytes } from '../../scorm/manifest/xml.reader.ts'
import {
  listZipEntries,
  readZipEntry,
  type UnpackSummary,
  unpackZip,
  type WriteEntry,
} from './unpack.ts'
import type { UnpackLimits } from './unpack-limits.ts'

export interface InspectOptions {
  /** Largest descriptor (imsmanifest.xml, cmi5.xml, tincan.xml) accepted. Default 4 MiB. */
  maxManifestBytes?: number
  /** Title when the package names none, e.g. the uploaded file name without `.zip`. */
  fallbackTitle?: string
}

const DEFAULT_MAX_MANIFEST_BYTES = 4 * 1024 * 1024

/**
 * Step 1 of an upload: checks the zip (names, links, encryption, declared sizes) from its
 * central directory, reads and validates the descriptor, and returns the summary to store.
 * Writes nothing. Throws AppError `invalid_package` / `payload_too_large` with an author-facing
 * message when the package is refused.
 */
export async function inspectPackage(
  zipPath: string,
  limits: Partial<UnpackLimits> = {},
  options: InspectOptions = {},
): Promise<ManifestSummary> {
  const listing = await listZipEntries(zipPath, limits)
  const files = listing.entries.map((e) => e.path)
  const layout = detectPackageLayout(files)
  const bytes = await readZipEntry(zipPath, layout.manifestPath, {
    limits,
    maxBytes: options.maxManifestBytes ?? DEFAULT_MAX_MANIFEST_BYTES,
  })
  if (bytes === null)
    throw new Error(`${layout.manifestPath} vanished between two reads of ${zipPath}`)
  return summarisePackage({
    layout,
    text: decodeXmlBytes(bytes),
    files,
    totalBytes: listing.totalBytes,
    fallbackTitle: options.fallbackTitle,
  })
}

/**
 * Step 2: streams every file of an inspected zip to `writeEntry`, one at a time, with all limits
 * enforced on the real bytes. On AppError some files may already be written: store under a
 * version prefix and `deletePrefix` it on failure. Throws a plain Error if the zip no longer
 * matches the inspection (it was replaced in between).
 */
export async function storePackageFiles(
  zipPath: string,
  summary: Pick<ManifestSummary, 'files'>,
  limits: Partial<UnpackLimits>,
  writeEntry: WriteEntry,
): Promise<UnpackSummary> {
  const expected = new Set(summary.files)
  const result = await unpackZip(zipPath, limits, async (path, stream, size) => {
    if (!expected.has(path)) {
      stream.destroy()
      throw new Error(
        `'${path}' was not in the inspected package; the zip changed after inspection`,
      )
    }
    await writeEntry(path, stream, size)
  })
  if (result.fileCount !== expected.size) {
    throw new Error(
      'the zip holds fewer files than when it was inspected; it changed after inspection',
    )
  }
  return result
}
