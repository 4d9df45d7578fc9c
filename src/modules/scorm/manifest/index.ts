export { CMI5_FILE, parseCmi5 } from './cmi5.parser.ts'
export { type ItemLaunch, resolveLaunches } from './item-launch.resolver.ts'
export { applyParameters, buildLaunchHref, joinBases, resolveHref } from './launch-href.ts'
export type * from './manifest.types.ts'
export { MANIFEST_LIMITS } from './manifest-limits.ts'
export { detectPackageLayout, type PackageLayout, summarisePackage } from './package-manifest.ts'
export { MANIFEST_FILE, parseScormManifest } from './scorm-manifest.parser.ts'
export {
  checkScormManifest,
  type ScormManifestCheck,
  validateScormManifest,
} from './scorm-manifest.validator.ts'
export { detectScormVersion, versionFromSchemaVersion } from './scorm-version.ts'
export type * from './sequencing.types.ts'
export { parseTinCan, TINCAN_FILE } from './tincan.parser.ts'
export { decodeXmlBytes, parseXmlDocument } from './xml.reader.ts'
