import type {
  AdlObjective,
  AdlObjectiveMap,
  ConstrainedChoiceConsiderations,
  ControlMode,
  DeliveryControls,
  LimitConditions,
  Objective,
  ObjectiveMap,
  RandomizationControls,
  RollupConsiderations,
  RollupRule,
  RollupRules,
  RuleCondition,
  SequencingDefinition,
  SequencingRule,
  SequencingRules,
} from './sequencing.types.ts'
import {
  attr,
  childNamed,
  childrenNamed,
  cleanText,
  inNamespace,
  type XmlElement,
} from './xml.reader.ts'

type Kind = 'bool' | 'int' | 'dec' | 'str'
type Warn = (message: string) => void

function parseValue(kind: Kind, raw: string): boolean | number | string | undefined {
  const value = raw.trim()
  switch (kind) {
    case 'bool':
      if (value === 'true' || value === '1') return true
      if (value === 'false' || value === '0') return false
      return undefined
    case 'int': {
      const n = Number(value)
      return value !== '' && Number.isInteger(n) ? n : undefined
    }
    case 'dec': {
      const n = Number(value)
      return value !== '' && Number.isFinite(n) ? n : undefined
    }
    case 'str':
      return value
  }
}

/**
 * Reads the listed attributes with their types; absent ones stay absent, and a value of the
 * wrong type is dropped with a warning so one typo does not refuse a whole course.
 */
function pick<T extends object>(el: XmlElement, spec: { [K in keyof T]-?: Kind }, warn: Warn): T {
  const out: Record<string, unknown> = {}
  for (const [name, kind] of Object.entries(spec) as [string, Kind][]) {
    const raw = attr(el, name)
    if (raw === undefined) continue
    const value = parseValue(kind, raw)
    if (value === undefined) {
      warn(
        `Ignored ${el.name}/@${name}="${raw}": not a valid ${kind === 'bool' ? 'true/false' : 'number'} value.`,
      )
      continue
    }
    out[name] = value
  }
  return out as T
}

function ruleConditions(
  el: XmlElement | undefined,
  warn: Warn,
): { combination?: 'all' | 'any'; conditions: RuleCondition[] } {
  if (!el) return { conditions: [] }
  const combination = attr(el, 'conditionCombination')
  const conditions = childrenNamed(el, 'ruleCondition').map((c) =>
    pick<RuleCondition>(
      c,
      { condition: 'str', operator: 'str', referencedObjective: 'str', measureThreshold: 'dec' },
      warn,
    ),
  )
  return {
    ...(combination === 'all' || combination === 'any' ? { combination } : {}),
    conditions,
  }
}

function sequencingRules(el: XmlElement, warn: Warn): SequencingRules {
  const read = (name: string): SequencingRule[] =>
    childrenNamed(el, name).map((rule) => {
      const { combination, conditions } = ruleConditions(childNamed(rule, 'ruleConditions'), warn)
      const action = attr(childNamed(rule, 'ruleAction') ?? rule, 'action') ?? ''
      return {
        ...(combination ? { conditionCombination: combination } : {}),
        conditions,
        action,
      }
    })
  return {
    pre: read('preConditionRule'),
    exit: read('exitConditionRule'),
    post: read('postConditionRule'),
  }
}

function rollupRules(el: XmlElement, warn: Warn): RollupRules {
  const head = pick<Omit<RollupRules, 'rules'>>(
    el,
    {
      rollupObjectiveSatisfied: 'bool',
      rollupProgressCompletion: 'bool',
      objectiveMeasureWeight: 'dec',
    },
    warn,
  )
  const rules = childrenNamed(el, 'rollupRule').map((rule): RollupRule => {
    const base = pick<Omit<RollupRule, 'conditions' | 'action' | 'conditionCombination'>>(
      rule,
      { childActivitySet: 'str', minimumCount: 'int', minimumPercent: 'dec' },
      warn,
    )
    const condsEl = childNamed(rule, 'rollupConditions')
    const combination = condsEl ? attr(condsEl, 'conditionCombination') : undefined
    const conditions = condsEl
      ? childrenNamed(condsEl, 'rollupCondition').map((c) =>
          pick<{ condition: string; operator?: 'not' | 'noOp' }>(
            c,
            { condition: 'str', operator: 'str' },
            warn,
          ),
        )
      : []
    return {
      ...base,
      ...(combination === 'all' || combination === 'any'
        ? { conditionCombination: combination }
        : {}),
      conditions,
      action: attr(childNamed(rule, 'rollupAction') ?? rule, 'action') ?? '',
    }
  })
  return { ...head, rules }
}

function objective(el: XmlElement, warn: Warn): Objective {
  const base = pick<Omit<Objective, 'mapInfo' | 'minNormalizedMeasure'>>(
    el,
    { objectiveID: 'str', satisfiedByMeasure: 'bool' },
    warn,
  )
  const out: Objective = { ...base, mapInfo: [] }
  const measure = childNamed(el, 'minNormalizedMeasure')
  if (measure) {
    const value = parseValue('dec', measure.text)
    if (typeof value === 'number') out.minNormalizedMeasure = value
    else warn(`Ignored minNormalizedMeasure "${cleanText(measure.text)}": not a number.`)
  }
  out.mapInfo = childrenNamed(el, 'mapInfo').map((m) =>
    pick<ObjectiveMap>(
      m,
      {
        targetObjectiveID: 'str',
        readSatisfiedStatus: 'bool',
        readNormalizedMeasure: 'bool',
        writeSatisfiedStatus: 'bool',
        writeNormalizedMeasure: 'bool',
      },
      warn,
    ),
  )
  return out
}

const ADL_MAP_SPEC: { [K in keyof AdlObjectiveMap]-?: Kind } = {
  targetObjectiveID: 'str',
  readRawScore: 'bool',
  readMinScore: 'bool',
  readMaxScore: 'bool',
  readCompletionStatus: 'bool',
  readProgressMeasure: 'bool',
  writeRawScore: 'bool',
  writeMinScore: 'bool',
  writeMaxScore: 'bool',
  writeCompletionStatus: 'bool',
  writeProgressMeasure: 'bool',
}

function adlObjectives(el: XmlElement, warn: Warn): AdlObjective[] {
  return childrenNamed(el, 'objective').map((o) => ({
    objectiveID: attr(o, 'objectiveID') ?? '',
    mapInfo: childrenNamed(o, 'mapInfo').map((m) => pick<AdlObjectiveMap>(m, ADL_MAP_SPEC, warn)),
  }))
}

/**
 * Parses one `<imsss:sequencing>` element. Long on purpose: one branch per child element of the
 * IMS SS schema, in the schema's order, so it can be read against the schema's table.
 */
export function parseSequencing(el: XmlElement, warn: Warn): SequencingDefinition {
  const out: SequencingDefinition = {}
  const id = attr(el, 'ID')
  const idRef = attr(el, 'IDRef')
  if (id) out.id = id
  if (idRef) out.idRef = idRef
  for (const child of el.children) {
    switch (child.name) {
      case 'controlMode':
        out.controlMode = pick<ControlMode>(
          child,
          {
            choice: 'bool',
            choiceExit: 'bool',
            flow: 'bool',
            forwardOnly: 'bool',
            useCurrentAttemptObjectiveInfo: 'bool',
            useCurrentAttemptProgressInfo: 'bool',
          },
          warn,
        )
        break
      case 'sequencingRules':
        out.sequencingRules = sequencingRules(child, warn)
        break
      case 'limitConditions':
        out.limitConditions = pick<LimitConditions>(
          child,
          { attemptLimit: 'int', attemptAbsoluteDurationLimit: 'str' },
          warn,
        )
        break
      case 'auxiliaryResources':
        out.auxiliaryResources = childrenNamed(child, 'auxiliaryResource').map((a) => ({
          auxiliaryResourceID: attr(a, 'auxiliaryResourceID') ?? '',
          purpose: attr(a, 'purpose') ?? '',
        }))
        break
      case 'rollupRules':
        out.rollupRules = rollupRules(child, warn)
        break
      case 'objectives':
        if (inNamespace(child, 'adlseq')) {
          out.adlObjectives = adlObjectives(child, warn)
        } else {
          const primary = childNamed(child, 'primaryObjective')
          out.objectives = {
            primary: primary ? objective(primary, warn) : null,
            others: childrenNamed(child, 'objective').map((o) => objective(o, warn)),
          }
        }
        break
      case 'randomizationControls':
        out.randomizationControls = pick<RandomizationControls>(
          child,
          {
            randomizationTiming: 'str',
            selectCount: 'int',
            reorderChildren: 'bool',
            selectionTiming: 'str',
          },
          warn,
        )
        break
      case 'deliveryControls':
        out.deliveryControls = pick<DeliveryControls>(
          child,
          { tracked: 'bool', completionSetByContent: 'bool', objectiveSetByContent: 'bool' },
          warn,
        )
        break
      case 'constrainedChoiceConsiderations':
        out.constrainedChoiceConsiderations = pick<ConstrainedChoiceConsiderations>(
          child,
          { preventActivation: 'bool', constrainChoice: 'bool' },
          warn,
        )
        break
      case 'rollupConsiderations':
        out.rollupConsiderations = pick<RollupConsiderations>(
          child,
          {
            requiredForSatisfied: 'str',
            requiredForNotSatisfied: 'str',
            requiredForCompleted: 'str',
            requiredForIncomplete: 'str',
            measureSatisfactionIfActive: 'bool',
          },
          warn,
        )
        break
      default:
        break
    }
  }
  return out
}
