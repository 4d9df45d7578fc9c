/**
 * Resolves a manifest `<imsss:sequencing>` block into the engine's definitions, applying the
 * defaults of the IMS SS / SCORM 2004 4th Edition tables wherever the manifest is silent.
 */
import { isoDurationSeconds, parseIsoDuration } from '../../data-model/durations.ts'
import type { CompletionThreshold } from '../../manifest/manifest.types.ts'
import type { Objective, SequencingDefinition } from '../../manifest/sequencing.types.ts'
import type {
  CompletionThresholdDef,
  ControlModeDef,
  ObjectiveDef,
  ObjectiveMapDef,
  RandomizationDef,
  RollupConsideration,
  RollupConsiderationsDef,
  RollupRuleDef,
  RuleConditionName,
  SequencingRuleDef,
} from './activity-tree.types.ts'

/**
 * Objective ids are anyURIs: ADL's conformance packages write them %-escaped and padded
 * (`"  %20obj%20%201%20  "` names `obj 1`), so ids are compared decoded, with whitespace
 * collapsed as XML Schema does for anyURI.
 */
export function normalizeObjectiveId(raw: string): string {
  let id = raw.trim()
  try {
    id = decodeURIComponent(id)
  } catch {
    // Not a valid escape sequence: keep it as written.
  }
  return id.replace(/\s+/g, ' ').trim()
}

/** The item's block laid over the `sequencingCollection` block it references (`IDRef`): an
 * element the item writes replaces the collection's element of that name. (Merging attribute by
 * attribute instead makes ADL's CTS cases CM-03b and CM-04a fail.) */
export function mergeSequencing(
  own: SequencingDefinition | null,
  collection: readonly SequencingDefinition[],
): SequencingDefinition {
  if (!own) return {}
  const base = own.idRef ? collection.find((c) => c.id === own.idRef) : undefined
  return base ? { ...base, ...own } : own
}

export function controlModeOf(def: SequencingDefinition): ControlModeDef {
  const c = def.controlMode ?? {}
  return {
    choice: c.choice ?? true,
    choiceExit: c.choiceExit ?? true,
    flow: c.flow ?? false,
    forwardOnly: c.forwardOnly ?? false,
    useCurrentAttemptObjectiveInfo: c.useCurrentAttemptObjectiveInfo ?? true,
    useCurrentAttemptProgressInfo: c.useCurrentAttemptProgressInfo ?? true,
  }
}

export function sequencingRulesOf(
  def: SequencingDefinition,
  kind: 'pre' | 'exit' | 'post',
): SequencingRuleDef[] {
  return (def.sequencingRules?.[kind] ?? []).map((rule) => ({
    conditionCombination: rule.conditionCombination ?? 'all',
    conditions: rule.conditions.map((c) => ({
      condition: c.condition.trim() as RuleConditionName,
      not: c.operator === 'not',
      referencedObjective: c.referencedObjective?.trim()
        ? normalizeObjectiveId(c.referencedObjective)
        : null,
      measureThreshold: c.measureThreshold ?? 0,
    })),
    action: rule.action.trim(),
  }))
}

export function rollupRulesOf(def: SequencingDefinition): RollupRuleDef[] {
  return (def.rollupRules?.rules ?? []).map((rule) => ({
    childActivitySet: rule.childActivitySet ?? 'all',
    minimumCount: rule.minimumCount ?? 0,
    minimumPercent: rule.minimumPercent ?? 0,
    conditionCombination: rule.conditionCombination ?? 'any',
    conditions: rule.conditions.map((c) => ({
      condition: c.condition.trim() as RuleConditionName,
      not: c.operator === 'not',
    })),
    action: rule.action.trim() as RollupRuleDef['action'],
  }))
}

function objectiveDef(
  o: Objective,
  primary: boolean,
  adl: SequencingDefinition['adlObjectives'],
): ObjectiveDef {
  const id = o.objectiveID?.trim() ? normalizeObjectiveId(o.objectiveID) : '_primary'
  const maps: ObjectiveMapDef[] = o.mapInfo.map((m) => ({
    ...NO_ADL_MAP,
    target: normalizeObjectiveId(m.targetObjectiveID),
    readSatisfiedStatus: m.readSatisfiedStatus ?? true,
    readNormalizedMeasure: m.readNormalizedMeasure ?? true,
    writeSatisfiedStatus: m.writeSatisfiedStatus ?? false,
    writeNormalizedMeasure: m.writeNormalizedMeasure ?? false,
  }))
  for (const extra of adl?.filter((a) => normalizeObjectiveId(a.objectiveID) === id) ?? []) {
    for (const m of extra.mapInfo) {
      const target = normalizeObjectiveId(m.targetObjectiveID)
      let map = maps.find((x) => x.target === target)
      if (!map) {
        map = {
          ...NO_ADL_MAP,
          target,
          readSatisfiedStatus: false,
          readNormalizedMeasure: false,
          writeSatisfiedStatus: false,
          writeNormalizedMeasure: false,
        }
        maps.push(map)
      }
      Object.assign(map, {
        readRawScore: m.readRawScore ?? true,
        readMinScore: m.readMinScore ?? true,
        readMaxScore: m.readMaxScore ?? true,
        readCompletionStatus: m.readCompletionStatus ?? true,
        readProgressMeasure: m.readProgressMeasure ?? true,
        writeRawScore: m.writeRawScore ?? false,
        writeMinScore: m.writeMinScore ?? false,
        writeMaxScore: m.writeMaxScore ?? false,
        writeCompletionStatus: m.writeCompletionStatus ?? false,
        writeProgressMeasure: m.writeProgressMeasure ?? false,
      })
    }
  }
  return {
    id,
    primary,
    satisfiedByMeasure: o.satisfiedByMeasure ?? false,
    minNormalizedMeasure: o.minNormalizedMeasure ?? 1,
    maps,
  }
}

const NO_ADL_MAP = {
  readRawScore: false,
  readMinScore: false,
  readMaxScore: false,
  readCompletionStatus: false,
  readProgressMeasure: false,
  writeRawScore: false,
  writeMinScore: false,
  writeMaxScore: false,
  writeCompletionStatus: false,
  writeProgressMeasure: false,
}

/** Objectives, primary first. Every activity has a primary objective (SN §4.2.1.2); when the
 * manifest names none, one without maps stands in so rollup has somewhere to write. */
export function objectivesOf(def: SequencingDefinition): ObjectiveDef[] {
  const primary = def.objectives?.primary
  const out = [
    primary
      ? objectiveDef(primary, true, def.adlObjectives)
      : objectiveDef({ mapInfo: [] }, true, []),
  ]
  for (const o of def.objectives?.others ?? []) {
    const def2 = objectiveDef(o, false, def.adlObjectives)
    if (!out.some((x) => x.id === def2.id)) out.push(def2)
  }
  return out
}

const TIMINGS = new Set(['never', 'once', 'onEachNewAttempt'])

export function randomizationOf(def: SequencingDefinition): RandomizationDef {
  const r = def.randomizationControls ?? {}
  const timing = (t: string | undefined) =>
    (t && TIMINGS.has(t) ? t : 'never') as RandomizationDef['selectionTiming']
  return {
    randomizationTiming: timing(r.randomizationTiming),
    selectCount: r.selectCount ?? null,
    reorderChildren: r.reorderChildren ?? false,
    selectionTiming: timing(r.selectionTiming),
  }
}

const CONSIDERATIONS = new Set(['always', 'ifAttempted', 'ifNotSkipped', 'ifNotSuspended'])

export function rollupConsiderationsOf(def: SequencingDefinition): RollupConsiderationsDef {
  const r = def.rollupConsiderations ?? {}
  const pick = (v: string | undefined): RollupConsideration =>
    v && CONSIDERATIONS.has(v) ? (v as RollupConsideration) : 'always'
  return {
    requiredForSatisfied: pick(r.requiredForSatisfied),
    requiredForNotSatisfied: pick(r.requiredForNotSatisfied),
    requiredForCompleted: pick(r.requiredForCompleted),
    requiredForIncomplete: pick(r.requiredForIncomplete),
    measureSatisfactionIfActive: r.measureSatisfactionIfActive ?? true,
  }
}

export function completionThresholdOf(c: CompletionThreshold | null): CompletionThresholdDef {
  return {
    completedByMeasure: c?.completedByMeasure ?? false,
    minProgressMeasure: c?.minProgressMeasure ?? 1,
    progressWeight: c?.progressWeight ?? 1,
  }
}

/** Seconds of an ISO 8601 duration; null when absent or unreadable (no limit). */
export function durationSeconds(value: string | undefined): number | null {
  const d = value ? parseIsoDuration(value.trim()) : undefined
  return d ? isoDurationSeconds(d) : null
}
