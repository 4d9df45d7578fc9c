import type { SequencingDefinition } from './sequencing.types.ts'

export type ContentType = 'scorm' | 'cmi5' | 'xapi'
export type ScormVersion = '1.2' | '2004'
export type ScormEdition = '2nd' | '3rd' | '4th'

/**
 * What a package is and how to launch it. Plain JSON (no Dates, no undefined in required
 * fields): stored with the package version and returned by GET /packages/{id}.
 */
export interface ManifestSummary {
  contentType: ContentType
  /** null for cmi5 and xAPI packages. */
  scormVersion: ScormVersion | null
  /** SCORM 2004 edition; null for SCORM 1.2, cmi5 and xAPI. */
  edition: ScormEdition | null
  /** The file the structure was read from: `imsmanifest.xml`, `cmi5.xml` or `tincan.xml`. */
  manifestPath: string
  /** Manifest identifier (SCORM), course id (cmi5) or main activity id (Tin Can). */
  identifier: string | null
  title: string
  description: string | null
  /** What a learner can launch, in course order (SCORM: the default organization). */
  launches: LaunchTarget[]
  scorm: ScormStructure | null
  cmi5: Cmi5Structure | null
  xapi: TinCanStructure | null
  /** Every file of the package, as stored (package-relative, `/`-separated). */
  files: string[]
  /** Uncompressed size of all files. */
  totalBytes: number
  /** Problems that did not stop the import, in words an author understands. */
  warnings: string[]
}

export interface LaunchTarget {
  /** Item identifier (SCORM), AU id (cmi5) or activity id (Tin Can). */
  id: string
  title: string
  kind: 'sco' | 'asset' | 'au' | 'activity'
  /** SCORM: the organization the item belongs to. */
  organizationId: string | null
  /** SCORM: the resource the item launches. */
  resourceId: string | null
  /**
   * URL to open, relative to the package root (percent-encoded path, with the item's parameters
   * joined), or an absolute http(s) URL for external content.
   */
  href: string
  /** The package file `href` designates; null for external content. */
  path: string | null
}

export interface ScormStructure {
  defaultOrganization: string
  organizations: ManifestOrganization[]
  resources: ManifestResource[]
  /** Blocks of `<imsss:sequencingCollection>`, referenced by `idRef` from items. */
  sequencingCollection: SequencingDefinition[]
  /** True when the manifest had no organization and one was built from its resources. */
  organizationGenerated: boolean
}

export interface ManifestOrganization {
  identifier: string
  title: string
  items: ManifestItem[]
  sequencing: SequencingDefinition | null
  /** adlseq:objectivesGlobalToSystem, default true. */
  objectivesGlobalToSystem: boolean
  /** adlcp:sharedDataGlobalToSystem, default true. */
  sharedDataGlobalToSystem: boolean
}

export interface ManifestItem {
  identifier: string
  title: string
  identifierref: string | null
  isvisible: boolean
  parameters: string | null
  /** Launch URL of a leaf item (see LaunchTarget.href); null for clusters. */
  launchHref: string | null
  launchPath: string | null
  scormType: 'sco' | 'asset' | null
  /** SCORM 1.2 adlcp:masteryscore (0–100). */
  masteryScore: number | null
  /** SCORM 2004: the primary objective's minNormalizedMeasure when satisfiedByMeasure. */
  scaledPassingScore: number | null
  /** SCORM 1.2 adlcp:prerequisites (AICC script). */
  prerequisites: string | null
  /** 1.2 adlcp:maxtimeallowed, or 2004 attemptAbsoluteDurationLimit. */
  maxTimeAllowed: string | null
  timeLimitAction: string | null
  dataFromLms: string | null
  completionThreshold: CompletionThreshold | null
  sequencing: SequencingDefinition | null
  /** adlnav:presentation / navigationInterface / hideLMSUI values. */
  hideLmsUi: string[]
  /** adlcp:data / adlcp:map (4th Edition shared data). */
  sharedData: SharedDataMap[]
  children: ManifestItem[]
}

export interface CompletionThreshold {
  completedByMeasure: boolean
  minProgressMeasure: number
  progressWeight: number
}

export interface SharedDataMap {
  targetID: string
  readSharedData: boolean
  writeSharedData: boolean
}

export interface ManifestResource {
  identifier: string
  type: string
  scormType: 'sco' | 'asset' | null
  /** href as written in the manifest. */
  href: string | null
  /** The combined xml:base of manifest, resources and resource ('' when none). */
  base: string
  /** The package file the resource launches; null without href or for external URLs. */
  launchPath: string | null
  /** Files listed by the resource, resolved to package paths. */
  files: string[]
  dependencies: string[]
}

export interface Cmi5Structure {
  courseId: string
  blocks: Cmi5Block[]
  aus: Cmi5Au[]
}

export interface Cmi5Block {
  id: string
  title: string
  /** Ids of AUs and blocks directly inside, in order. */
  children: string[]
}

export interface Cmi5Au {
  id: string
  title: string
  description: string | null
  url: string
  launchMethod: 'AnyWindow' | 'OwnWindow'
  moveOn: 'Passed' | 'Completed' | 'CompletedAndPassed' | 'CompletedOrPassed' | 'NotApplicable'
  masteryScore: number | null
  activityType: string | null
  launchParameters: string | null
  entitlementKey: string | null
  /** Id of the enclosing block, null at course level. */
  blockId: string | null
}

export interface TinCanStructure {
  activities: TinCanActivity[]
}

export interface TinCanActivity {
  id: string
  type: string | null
  name: string
  description: string | null
  launch: string | null
}
