export { displayName, normaliseEntryName } from './entry-path.policy.ts'
export { IngestSlots, ingestSlots, withIngestSlot } from './ingest-slots.ts'
export { type InspectOptions, inspectPackage, storePackageFiles } from './package-inspector.ts'
export {
  listZipEntries,
  type ReadEntryOptions,
  readZipEntry,
  readZipEntryText,
  type UnpackSummary,
  unpackZip,
  type WriteEntry,
  type ZipListing,
} from './unpack.ts'
export {
  DEFAULT_UNPACK_LIMITS,
  formatBytes,
  resolveUnpackLimits,
  type UnpackLimits,
} from './unpack-limits.ts'
export type { ZipEntryInfo } from './zip-walker.ts'
