/**
 * fast-check generators for the property test: valid activity trees (every field the engine
 * reads, with random control modes, sequencing and rollup rules, limit conditions, selection
 * and randomization, objectives and global objective maps), navigation requests and SCO
 * results. `disabled` and `hiddenFromChoice` rules always use the `always` condition, so a test
 * can tell, without the engine, which activities must never be delivered or chosen.
 */
import fc from 'fast-check'
import type {
  Activity,
  ActivityTree,
  NavigationRequest,
  ObjectiveDef,
  RuleConditionName,
  ScoResults,
  SequencingRuleDef,
  TrackingState,
} from '../../../../src/modules/scorm/sequencing/index.ts'

const GLOBALS = ['g1', 'g2', 'g3']
const CONDITIONS: RuleConditionName[] = [
  'satisfied',
  'objectiveStatusKnown',
  'objectiveMeasureKnown',
  'objectiveMeasureGreaterThan',
  'completed',
  'activityProgressKnown',
  'attempted',
  'attemptLimitExceeded',
  'always',
]

const condition = fc.record({
  condition: fc.constantFrom(...CONDITIONS),
  not: fc.boolean(),
  referencedObjective: fc.constant(null),
  measureThreshold: fc.constantFrom(0, 0.5),
})

const rule = (actions: string[]): fc.Arbitrary<SequencingRuleDef> =>
  fc.record({
    conditionCombination: fc.constantFrom<'all' | 'any'>('all', 'any'),
    conditions: fc.array(condition, { minLength: 1, maxLength: 2 }),
    action: fc.constantFrom(...actions),
  })

/** A rule whose action fires whatever the state: the activity is disabled / hidden for good. */
const alwaysRule = (action: string): SequencingRuleDef => ({
  conditionCombination: 'all',
  conditions: [{ condition: 'always', not: false, referencedObjective: null, measureThreshold: 0 }],
  action,
})

const map = fc.record({
  target: fc.constantFrom(...GLOBALS),
  readSatisfiedStatus: fc.boolean(),
  readNormalizedMeasure: fc.boolean(),
  writeSatisfiedStatus: fc.boolean(),
  writeNormalizedMeasure: fc.boolean(),
  readRawScore: fc.boolean(),
  readMinScore: fc.constant(false),
  readMaxScore: fc.constant(false),
  readCompletionStatus: fc.boolean(),
  readProgressMeasure: fc.boolean(),
  writeRawScore: fc.boolean(),
  writeMinScore: fc.constant(false),
  writeMaxScore: fc.constant(false),
  writeCompletionStatus: fc.boolean(),
  writeProgressMeasure: fc.boolean(),
})

const objective = (id: string, primary: boolean): fc.Arbitrary<ObjectiveDef> =>
  fc.record({
    id: fc.constant(id),
    primary: fc.constant(primary),
    satisfiedByMeasure: fc.boolean(),
    minNormalizedMeasure: fc.constantFrom(0.5, 1),
    maps: fc.array(map, { maxLength: 1 }),
  })

/** `value` four times in five. */
const mostly = (value: boolean) => fc.integer({ min: 0, max: 4 }).map((n) => n > 0 === value)

/** Everything of an activity but its place in the tree. */
const activityBody = fc.record({
  isVisible: fc.integer({ min: 0, max: 4 }).map((n) => n > 0),
  hideLmsUi: fc.subarray(['continue', 'previous', 'exitAll', 'suspendAll']),
  // Mostly the defaults a course would use, so sessions get going and reach deep states.
  controlMode: fc.record({
    choice: mostly(true),
    choiceExit: mostly(true),
    flow: mostly(true),
    forwardOnly: mostly(false),
    useCurrentAttemptObjectiveInfo: fc.boolean(),
    useCurrentAttemptProgressInfo: fc.boolean(),
  }),
  preConditionRules: fc.array(rule(['skip', 'stopForwardTraversal']), { maxLength: 1 }),
  disabled: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  hidden: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  exitConditionRules: fc.array(rule(['exit']), { maxLength: 1 }),
  postConditionRules: fc.array(
    rule(['exitParent', 'exitAll', 'retry', 'retryAll', 'continue', 'previous']),
    { maxLength: 1 },
  ),
  attemptLimit: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
  rollupRules: fc.array(
    fc.record({
      childActivitySet: fc.constantFrom<'all' | 'any' | 'none' | 'atLeastCount'>(
        'all',
        'any',
        'none',
        'atLeastCount',
      ),
      minimumCount: fc.integer({ min: 0, max: 2 }),
      minimumPercent: fc.constant(0),
      conditionCombination: fc.constantFrom<'all' | 'any'>('all', 'any'),
      conditions: fc.array(
        fc.record({
          condition: fc.constantFrom<RuleConditionName>('satisfied', 'completed', 'attempted'),
          not: fc.boolean(),
        }),
        { minLength: 1, maxLength: 2 },
      ),
      action: fc.constantFrom<'satisfied' | 'notSatisfied' | 'completed' | 'incomplete'>(
        'satisfied',
        'notSatisfied',
        'completed',
        'incomplete',
      ),
    }),
    { maxLength: 1 },
  ),
  objectives: fc.tuple(
    objective('_primary', true),
    fc.array(objective('o2', false), { maxLength: 1 }),
  ),
  randomization: fc.record({
    randomizationTiming: fc.constantFrom<'never' | 'once' | 'onEachNewAttempt'>(
      'never',
      'once',
      'onEachNewAttempt',
    ),
    selectCount: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
    reorderChildren: fc.boolean(),
    selectionTiming: fc.constantFrom<'never' | 'once' | 'onEachNewAttempt'>('never', 'once'),
  }),
  tracked: fc.integer({ min: 0, max: 9 }).map((n) => n > 0),
  preventActivation: fc.boolean(),
  constrainChoice: fc.boolean(),
  completedByMeasure: fc.boolean(),
})

type Body = typeof activityBody extends fc.Arbitrary<infer T> ? T : never

/** Activity i > 0 hangs under activity `parents[i - 1] % i`: every such list is a tree. */
function buildTree(parents: number[], bodies: Body[]): ActivityTree {
  const ids = ['root', ...parents.map((_, i) => `a${i + 1}`)]
  const children = new Map<string, string[]>(ids.map((id) => [id, []]))
  const parentOf = (i: number) => ids[(parents[i - 1] as number) % i] as string
  for (let i = 1; i < ids.length; i++) children.get(parentOf(i))?.push(ids[i] as string)
  const activities: Record<string, Activity> = {}
  for (const [i, id] of ids.entries()) {
    const body = bodies[i % bodies.length] as Body
    activities[id] = toActivity(id, i === 0 ? null : parentOf(i), children.get(id) ?? [], body)
  }
  return { root: 'root', activities, objectivesGlobalToSystem: bodies.length % 2 === 0 }
}

function toActivity(id: string, parent: string | null, children: string[], b: Body): Activity {
  const leaf = children.length === 0
  return {
    id,
    title: id,
    parent,
    children,
    resourceId: leaf ? 'R' : null,
    launchHref: leaf ? 'sco.html' : null,
    scormType: leaf ? 'sco' : null,
    isVisible: b.isVisible,
    hideLmsUi: b.hideLmsUi,
    controlMode: b.controlMode,
    preConditionRules: [
      ...(b.disabled ? [alwaysRule('disabled')] : []),
      ...(b.hidden ? [alwaysRule('hiddenFromChoice')] : []),
      ...b.preConditionRules,
    ],
    exitConditionRules: b.exitConditionRules,
    postConditionRules: b.postConditionRules,
    limitConditions: { attemptLimit: b.attemptLimit, attemptAbsoluteDurationLimit: null },
    rollupRules: b.rollupRules,
    rollupObjectiveSatisfied: true,
    rollupProgressCompletion: true,
    objectiveMeasureWeight: 1,
    objectives: [b.objectives[0], ...b.objectives[1]],
    randomization: b.randomization,
    deliveryControls: {
      tracked: b.tracked,
      completionSetByContent: false,
      objectiveSetByContent: false,
    },
    preventActivation: b.preventActivation,
    constrainChoice: b.constrainChoice,
    rollupConsiderations: {
      requiredForSatisfied: 'always',
      requiredForNotSatisfied: 'always',
      requiredForCompleted: 'always',
      requiredForIncomplete: 'always',
      measureSatisfactionIfActive: true,
    },
    completionThreshold: {
      completedByMeasure: b.completedByMeasure,
      minProgressMeasure: 0.5,
      progressWeight: 1,
    },
  }
}

/** A valid activity tree of 2 to 16 activities; the root always has children. */
export const activityTree: fc.Arbitrary<ActivityTree> = fc
  .tuple(
    fc.array(fc.nat({ max: 100 }), { minLength: 1, maxLength: 15 }),
    fc.array(activityBody, { minLength: 1, maxLength: 6 }),
  )
  .map(([parents, bodies]) => buildTree(parents, bodies))

const TYPES = [
  'start',
  'resumeAll',
  'continue',
  'previous',
  'choice',
  'jump',
  'exit',
  'exitAll',
  'abandon',
  'abandonAll',
  'suspendAll',
] as const

/** A navigation request; targets are indices into the tree's activities (or unknown ids). */
export const navigationStep = fc.record({
  // Continue and choice drive a session deepest; the others end or suspend it.
  type: fc.oneof(
    { arbitrary: fc.constantFrom('continue', 'choice'), weight: 6 },
    { arbitrary: fc.constantFrom('previous', 'jump', 'resumeAll', 'start'), weight: 2 },
    { arbitrary: fc.constantFrom(...TYPES), weight: 1 },
  ),
  target: fc.integer({ min: 0, max: 17 }),
  results: fc.option(
    fc.record(
      {
        completion_status: fc.constantFrom('completed', 'incomplete', 'unknown'),
        success_status: fc.constantFrom('passed', 'failed', 'unknown'),
        score_scaled: fc.option(fc.double({ min: -1, max: 1, noNaN: true }), { nil: null }),
        progress_measure: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
        exit: fc.constantFrom('', 'suspend', 'normal'),
        objectives: fc.array(
          fc.record({
            id: fc.constantFrom('o2', 'nope'),
            success_status: fc.constantFrom('passed', 'failed'),
          }),
          { maxLength: 1 },
        ),
      },
      { requiredKeys: [] },
    ),
    { nil: undefined },
  ),
})

export type NavigationStep = typeof navigationStep extends fc.Arbitrary<infer T> ? T : never

/**
 * The request a step stands for in `tree`, in the learner's situation: outside a sequencing
 * session the player can only start or resume one (and a session that ended is relaunched).
 * One target in (tree size + 1) is an id the tree lacks.
 */
export function toRequest(
  tree: ActivityTree,
  state: TrackingState,
  step: NavigationStep,
): NavigationRequest {
  if (state.current === null && step.type !== 'choice') {
    return { type: state.suspended === null ? 'start' : 'resumeAll' }
  }
  if (step.type !== 'choice' && step.type !== 'jump') return { type: step.type }
  const ids = Object.keys(tree.activities)
  const i = step.target % (ids.length + 1)
  return { type: step.type, target: ids[i] ?? `missing-${step.target}` }
}

export function toResults(step: NavigationStep): ScoResults | undefined {
  return step.results
}
