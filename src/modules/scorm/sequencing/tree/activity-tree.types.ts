/**
 * The activity tree (SN book §3.1) with every sequencing definition model element resolved: the
 * manifest's values, merged over the `sequencingCollection` block an item references, and the
 * IMS SS / ADL defaults for everything the manifest leaves out. Plain JSON, so it can be built
 * once per package version and stored with it.
 */
export interface ActivityTree {
  /** Identifier of the root activity (the organization). */
  root: string
  activities: Record<string, Activity>
  /** adlseq:objectivesGlobalToSystem of the organization (default true). */
  objectivesGlobalToSystem: boolean
}

export interface Activity {
  id: string
  title: string
  parent: string | null
  /** Children in manifest order (before selection and randomization). */
  children: string[]
  /** Resource identifier of a leaf; null for clusters and the organization. */
  resourceId: string | null
  /** Launch URL of a leaf (package-relative), null for clusters. */
  launchHref: string | null
  /** adlcp:scormType of the leaf's resource. */
  scormType: 'sco' | 'asset' | null
  /** `isvisible` (default true). */
  isVisible: boolean
  /** adlnav:hideLMSUI values (`continue`, `previous`, `exit`, `exitAll`, `abandon`, …). */
  hideLmsUi: string[]
  controlMode: ControlModeDef
  preConditionRules: SequencingRuleDef[]
  exitConditionRules: SequencingRuleDef[]
  postConditionRules: SequencingRuleDef[]
  limitConditions: LimitConditionsDef
  rollupRules: RollupRuleDef[]
  /** Default true. */
  rollupObjectiveSatisfied: boolean
  /** Default true. */
  rollupProgressCompletion: boolean
  /** Default 1.0. */
  objectiveMeasureWeight: number
  /** The primary objective first (always present, made up when the manifest names none). */
  objectives: ObjectiveDef[]
  randomization: RandomizationDef
  deliveryControls: DeliveryControlsDef
  /** adlseq:constrainedChoiceConsiderations, both default false. */
  preventActivation: boolean
  constrainChoice: boolean
  rollupConsiderations: RollupConsiderationsDef
  completionThreshold: CompletionThresholdDef
}

/** imsss:controlMode. Defaults: choice true, choiceExit true, flow false, forwardOnly false,
 * useCurrentAttemptObjectiveInfo true, useCurrentAttemptProgressInfo true. */
export interface ControlModeDef {
  choice: boolean
  choiceExit: boolean
  flow: boolean
  forwardOnly: boolean
  useCurrentAttemptObjectiveInfo: boolean
  useCurrentAttemptProgressInfo: boolean
}

export type RuleConditionName =
  | 'satisfied'
  | 'objectiveStatusKnown'
  | 'objectiveMeasureKnown'
  | 'objectiveMeasureGreaterThan'
  | 'objectiveMeasureLessThan'
  | 'completed'
  | 'activityProgressKnown'
  | 'attempted'
  | 'attemptLimitExceeded'
  | 'timeLimitExceeded'
  | 'outsideAvailableTimeRange'
  | 'always'

export interface RuleConditionDef {
  condition: RuleConditionName
  /** Default false (`noOp`). */
  not: boolean
  /** Objective id; default the primary objective. */
  referencedObjective: string | null
  /** Default 0.0. */
  measureThreshold: number
}

export interface SequencingRuleDef {
  /** Default `all` for sequencing rules. */
  conditionCombination: 'all' | 'any'
  conditions: RuleConditionDef[]
  action: string
}

export interface RollupRuleDef {
  /** Default `all`. */
  childActivitySet: 'all' | 'any' | 'none' | 'atLeastCount' | 'atLeastPercent'
  /** Default 0. */
  minimumCount: number
  /** Default 0.0. */
  minimumPercent: number
  /** Default `any` for rollup rules. */
  conditionCombination: 'all' | 'any'
  conditions: { condition: RuleConditionName; not: boolean }[]
  action: 'satisfied' | 'notSatisfied' | 'completed' | 'incomplete'
}

export interface LimitConditionsDef {
  /** Absent: no limit. */
  attemptLimit: number | null
  /** Seconds; absent: no limit. */
  attemptAbsoluteDurationLimit: number | null
}

export interface ObjectiveMapDef {
  target: string
  readSatisfiedStatus: boolean
  readNormalizedMeasure: boolean
  writeSatisfiedStatus: boolean
  writeNormalizedMeasure: boolean
  /** adlseq:objectives map extensions (4th Edition), all default false. */
  readRawScore: boolean
  readMinScore: boolean
  readMaxScore: boolean
  readCompletionStatus: boolean
  readProgressMeasure: boolean
  writeRawScore: boolean
  writeMinScore: boolean
  writeMaxScore: boolean
  writeCompletionStatus: boolean
  writeProgressMeasure: boolean
}

export interface ObjectiveDef {
  /** The objectiveID; `_primary` for a primary objective the manifest does not name. */
  id: string
  primary: boolean
  /** Default false. */
  satisfiedByMeasure: boolean
  /** Default 1.0. */
  minNormalizedMeasure: number
  maps: ObjectiveMapDef[]
}

/** imsss:randomizationControls. Defaults: timings `never`, no selectCount, reorder false. */
export interface RandomizationDef {
  randomizationTiming: 'never' | 'once' | 'onEachNewAttempt'
  selectCount: number | null
  reorderChildren: boolean
  selectionTiming: 'never' | 'once' | 'onEachNewAttempt'
}

/** imsss:deliveryControls. Defaults: tracked true, completionSetByContent false,
 * objectiveSetByContent false. */
export interface DeliveryControlsDef {
  tracked: boolean
  completionSetByContent: boolean
  objectiveSetByContent: boolean
}

export type RollupConsideration = 'always' | 'ifAttempted' | 'ifNotSkipped' | 'ifNotSuspended'

/** adlseq:rollupConsiderations. Defaults: `always` for all four, measureSatisfactionIfActive
 * true. */
export interface RollupConsiderationsDef {
  requiredForSatisfied: RollupConsideration
  requiredForNotSatisfied: RollupConsideration
  requiredForCompleted: RollupConsideration
  requiredForIncomplete: RollupConsideration
  measureSatisfactionIfActive: boolean
}

/** adlcp:completionThreshold. Defaults: completedByMeasure false, minProgressMeasure 1.0,
 * progressWeight 1.0. */
export interface CompletionThresholdDef {
  completedByMeasure: boolean
  minProgressMeasure: number
  progressWeight: number
}
