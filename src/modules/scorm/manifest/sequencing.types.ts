/**
 * IMS Simple Sequencing data as written in a SCORM 2004 manifest, kept for the sequencing
 * engine. Only what the manifest states is present: an absent property means "not given", so
 * the engine can apply the IMS SS defaults itself and merge an item's block over the
 * `sequencingCollection` block it references (`idRef`), as the standard asks.
 */
export interface SequencingDefinition {
  /** `ID` of a block inside `<imsss:sequencingCollection>`. */
  id?: string
  /** `IDRef`: the collection block this one extends. */
  idRef?: string
  controlMode?: ControlMode
  sequencingRules?: SequencingRules
  limitConditions?: LimitConditions
  auxiliaryResources?: AuxiliaryResource[]
  rollupRules?: RollupRules
  objectives?: Objectives
  randomizationControls?: RandomizationControls
  deliveryControls?: DeliveryControls
  /** adlseq:constrainedChoiceConsiderations */
  constrainedChoiceConsiderations?: ConstrainedChoiceConsiderations
  /** adlseq:rollupConsiderations */
  rollupConsiderations?: RollupConsiderations
  /** adlseq:objectives (4th Edition): extra global-objective maps per objective. */
  adlObjectives?: AdlObjective[]
}

export interface ControlMode {
  choice?: boolean
  choiceExit?: boolean
  flow?: boolean
  forwardOnly?: boolean
  useCurrentAttemptObjectiveInfo?: boolean
  useCurrentAttemptProgressInfo?: boolean
}

export interface SequencingRules {
  pre: SequencingRule[]
  exit: SequencingRule[]
  post: SequencingRule[]
}

export interface SequencingRule {
  conditionCombination?: 'all' | 'any'
  conditions: RuleCondition[]
  /** e.g. skip, disabled, hiddenFromChoice, stopForwardTraversal, exitParent, retry, continue... */
  action: string
}

export interface RuleCondition {
  condition: string
  operator?: 'not' | 'noOp'
  referencedObjective?: string
  measureThreshold?: number
}

export interface LimitConditions {
  attemptLimit?: number
  /** ISO 8601 duration. */
  attemptAbsoluteDurationLimit?: string
}

export interface AuxiliaryResource {
  auxiliaryResourceID: string
  purpose: string
}

export interface RollupRules {
  rollupObjectiveSatisfied?: boolean
  rollupProgressCompletion?: boolean
  objectiveMeasureWeight?: number
  rules: RollupRule[]
}

export interface RollupRule {
  childActivitySet?: 'all' | 'any' | 'none' | 'atLeastCount' | 'atLeastPercent'
  minimumCount?: number
  minimumPercent?: number
  conditionCombination?: 'all' | 'any'
  conditions: { condition: string; operator?: 'not' | 'noOp' }[]
  action: string
}

export interface Objectives {
  primary: Objective | null
  others: Objective[]
}

export interface Objective {
  objectiveID?: string
  satisfiedByMeasure?: boolean
  minNormalizedMeasure?: number
  mapInfo: ObjectiveMap[]
}

export interface ObjectiveMap {
  targetObjectiveID: string
  readSatisfiedStatus?: boolean
  readNormalizedMeasure?: boolean
  writeSatisfiedStatus?: boolean
  writeNormalizedMeasure?: boolean
}

export interface RandomizationControls {
  randomizationTiming?: string
  selectCount?: number
  reorderChildren?: boolean
  selectionTiming?: string
}

export interface DeliveryControls {
  tracked?: boolean
  completionSetByContent?: boolean
  objectiveSetByContent?: boolean
}

export interface ConstrainedChoiceConsiderations {
  preventActivation?: boolean
  constrainChoice?: boolean
}

export interface RollupConsiderations {
  requiredForSatisfied?: string
  requiredForNotSatisfied?: string
  requiredForCompleted?: string
  requiredForIncomplete?: string
  measureSatisfactionIfActive?: boolean
}

export interface AdlObjective {
  objectiveID: string
  mapInfo: AdlObjectiveMap[]
}

export interface AdlObjectiveMap {
  targetObjectiveID: string
  readRawScore?: boolean
  readMinScore?: boolean
  readMaxScore?: boolean
  readCompletionStatus?: boolean
  readProgressMeasure?: boolean
  writeRawScore?: boolean
  writeMinScore?: boolean
  writeMaxScore?: boolean
  writeCompletionStatus?: boolean
  writeProgressMeasure?: boolean
}
