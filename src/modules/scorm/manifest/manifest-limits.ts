/**
 * Limits on a package's descriptor (imsmanifest.xml, cmi5.xml, tincan.xml), so one upload cannot
 * take hundreds of megabytes to parse (issue 10.9: a 4 MB manifest of 60 000 items took 290 MB).
 * Each is far above what real courses use; a package over one is refused with 422
 * `invalid_package`, the message naming the limit. The descriptor's size is capped separately
 * (`maxManifestBytes`, 4 MiB, in the package inspector).
 */
export const MANIFEST_LIMITS = Object.freeze({
  /**
   * Most XML elements in a descriptor: 50 000. Counted by a linear scan before parsing, it bounds
   * the memory of the parsed tree (about 1 KB of heap per element, so under ~60 MB).
   */
  maxManifestElements: 50_000,
  /** Most `<item>` elements over all organizations: 10 000. Checked before parsing too. */
  maxManifestItems: 10_000,
  /** Deepest nesting of items in an organization (a top-level item is level 1): 20. */
  maxItemDepth: 20,
})
