/**
 * Drives the sequencing engine through one ADL CTS case (fixtures/scorm/adl-cts-4ed): starts
 * the course, plays each expected delivery's SCO on the data-model runtime, hands its results
 * and navigation requests to the engine, and checks that the engine delivers the expected next
 * activity and ends the session where the case says so.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  type ManifestSummary,
  summarisePackage,
} from '../../../../../src/modules/scorm/manifest/index.ts'
import {
  type ActivityTree,
  buildActivityTree,
  createTrackingState,
  type GlobalObjectiveMap,
  isNavigationRequestValid,
  launchObjectives,
  type NavigationOutcome,
  type NavigationRequest,
  processNavigationRequest,
  reportScoResults,
  requestAfterTerminate,
  type ScoResults,
  type TrackingState,
  uiState,
} from '../../../../../src/modules/scorm/sequencing/index.ts'
import { type ManifestItem, readManifestItems } from '../../cts/manifest-items.ts'
import { CheckTally } from './check-tally.ts'
import { type PlayedSco, playSco, type SeqLaunch } from './play-sco.ts'
import type { SeqCase, SeqEvent } from './seq-case.types.ts'
import { judgeUiCheck, type UiCheck } from './ui-checks.ts'

export const CTS_DIR = join(
  import.meta.dirname,
  '../../../../../../shared/fixtures/scorm/adl-cts-4ed',
)

const TRACE = process.env.CTS_TRACE === '1'

interface Course {
  tree: ActivityTree
  state: TrackingState
  items: Map<string, ManifestItem>
  /** Global objectives of this course when it opts out of system-wide ones. */
  ownGlobals: GlobalObjectiveMap | null
  /** Per item: the run-time data its last session leaves for a resumed launch. */
  carry: Map<string, Record<string, string>>
}

export interface CaseOutcome {
  id: string
  passed: boolean
  detail: string
  tally: CheckTally
}

/** System-wide global objectives of the one CTS learner, shared by cases run in id order. */
export type LearnerGlobals = { map: GlobalObjectiveMap }

export function loadSeqCase(id: string): SeqCase {
  return JSON.parse(readFileSync(join(CTS_DIR, 'cases', `${id}.json`), 'utf8')) as SeqCase
}

function loadCourse(c: SeqCase, packageId: string): Course {
  const pkg = c.packages.find((p) => p.id === packageId) ?? c.packages[0]
  if (!pkg) throw new Error(`${c.id}: no package ${packageId}`)
  const path = join(CTS_DIR, pkg.manifest)
  const summary: ManifestSummary = summarisePackage({
    layout: { contentType: 'scorm', manifestPath: 'imsmanifest.xml', warnings: [] },
    text: readFileSync(path, 'utf8'),
    files: null,
    totalBytes: 0,
  })
  if (!summary.scorm) throw new Error(`${c.id}: not a SCORM manifest`)
  const tree = buildActivityTree(summary.scorm)
  return {
    tree,
    state: createTrackingState(),
    items: readManifestItems(path),
    ownGlobals: tree.objectivesGlobalToSystem ? null : {},
    carry: new Map(),
  }
}

class CaseRun {
  readonly courses = new Map<string, Course>()
  course!: Course
  delivered: string | null = null
  resumed = false
  /** How many deliveries the engine has made. */
  count = 0
  sco: PlayedSco | null = null
  scoDone = true

  readonly c: SeqCase
  readonly learner: LearnerGlobals
  readonly tally = new CheckTally()

  constructor(c: SeqCase, learner: LearnerGlobals) {
    this.c = c
    this.learner = learner
    this.course = this.open(c.packages[0]?.id ?? c.id)
  }

  open(packageId: string): Course {
    let course = this.courses.get(packageId)
    if (!course) {
      course = loadCourse(this.c, packageId)
      this.courses.set(packageId, course)
    }
    this.course = course
    return course
  }

  navigate(request: NavigationRequest, results?: ScoResults): NavigationOutcome {
    const course = this.course
    const globals = course.ownGlobals ?? this.learner.map
    const out = processNavigationRequest(course.tree, course.state, request, {
      globals,
      random: () => 0,
      ...(results ? { results } : {}),
    })
    course.state = out.state
    if (course.ownGlobals) course.ownGlobals = out.attemptEnded ? {} : out.globals
    else this.learner.map = out.globals
    if (TRACE) {
      const { state: _s, globals: _g, ...rest } = out
      console.log(
        '  nav',
        JSON.stringify(request),
        results ? JSON.stringify(results) : '',
        JSON.stringify(rest),
      )
      console.log('    state', JSON.stringify(out.state.activities))
      console.log('    globals', JSON.stringify(out.globals))
    }
    if (out.deliver !== null || out.sessionEnded) this.delivered = out.deliver
    if (out.deliver !== null) {
      this.count++
      this.resumed = out.resumed
      this.scoDone = false
      this.sco = null
    }
    return out
  }

  /** The SCO terminates: its results are recorded even without a navigation request. */
  terminate(pending: { request: string; target?: string } | null | undefined): void {
    const results = this.sco?.results()
    this.scoDone = true
    const request = requestAfterTerminate(results?.exit, pending ? toRequest(pending) : null)
    if (request) {
      this.navigate(request, results)
      return
    }
    const course = this.course
    const current = course.state.current
    if (results && current !== null) {
      const globals = course.ownGlobals ?? this.learner.map
      const out = reportScoResults(course.tree, course.state, current, results, { globals })
      course.state = out.state
      if (course.ownGlobals) course.ownGlobals = out.globals
      else this.learner.map = out.globals
    }
  }

  /** A tester's navigation event; a SCO still running is unloaded (its results kept). */
  tester(e: SeqEvent): void {
    const results = this.scoDone ? undefined : this.sco?.results()
    this.scoDone = true
    if (e.package) this.open(e.package)
    const target = e.targets?.[0]
    const request: NavigationRequest =
      e.request === 'choice' || e.request === 'jump'
        ? {
            type: e.request,
            target: target?.root ? this.course.tree.root : (target?.identifier ?? ''),
          }
        : (toRequest({ request: e.request ?? '' }) ?? { type: 'exitAll' })
    this.navigate(request, results)
  }

  globals(): GlobalObjectiveMap {
    return this.course.ownGlobals ?? this.learner.map
  }

  /** What the engine hands the run-time for the delivered activity. */
  seqLaunch(activity: string): SeqLaunch {
    const course = this.course
    const globals = () => this.globals()
    return {
      objectives: launchObjectives(course.tree, course.state, activity, { globals: globals() }),
      navigation: {
        requestValid: (type, target) => {
          const request = target === undefined ? { type } : { type, target: target.trim() }
          const ok = isNavigationRequestValid(course.tree, course.state, request, {
            globals: globals(),
          })
          return ok ? 'true' : 'false'
        },
      },
    }
  }

  /** The delivery's UI questions, answered from the engine's UI state now. */
  checkUi(checks: UiCheck[] | undefined): void {
    if (!checks || checks.length === 0) return
    const ui = uiState(this.course.tree, this.course.state, { globals: this.globals() })
    for (const check of checks) this.tally.record('uiCheck', judgeUiCheck(ui, check))
    if (TRACE) console.log('  ui', JSON.stringify({ ...ui, validity: undefined }))
  }

  launch(packageId: string, firstIsChoice: boolean): void {
    const course = this.open(packageId)
    if (firstIsChoice) return
    const out = this.navigate({ type: course.state.suspended !== null ? 'resumeAll' : 'start' })
    if (out.deliver === null) this.firstChoice()
  }

  /** Start delivers nothing when the root does not flow: the learner then picks from the table
   * of contents, and ADL's cases expect the first activity a choice would deliver. */
  firstChoice(): void {
    const { tree } = this.course
    const order: string[] = []
    const walk = (id: string) => {
      order.push(id)
      for (const c of tree.activities[id]?.children ?? []) walk(c)
    }
    walk(tree.root)
    for (const id of order.slice(1)) {
      if (this.navigate({ type: 'choice', target: id }).deliver !== null) return
    }
  }

  exitCourse(): void {
    if (this.course.state.current === null) return
    const results = this.scoDone ? undefined : this.sco?.results()
    this.scoDone = true
    this.navigate({ type: 'exitAll' }, results)
    this.delivered = null
  }
}

function toRequest(p: { request: string; target?: string }): NavigationRequest {
  if (p.request === 'choice' || p.request === 'jump') {
    return { type: p.request, target: (p.target ?? '').trim() }
  }
  return { type: p.request as NavigationRequest['type'] }
}

/** Runs events in order; an `expect` is graded into the tally, a failed one ends the case. */
function runEvents(run: CaseRun, events: SeqEvent[], checks?: UiCheck[]): string | null {
  for (const [i, e] of events.entries()) {
    switch (e.type) {
      case 'terminate':
        if (!run.scoDone) run.terminate(e.pendingRequest)
        break
      case 'unload':
        run.scoDone = true
        break
      case 'navigate':
        run.tester(e)
        break
      case 'exitCourse':
        run.exitCourse()
        break
      case 'launch':
        run.launch(e.package ?? run.c.id, events[i + 1]?.type === 'navigate')
        break
      case 'expect': {
        const problem = judgeExpect(run, e.what ?? '')
        run.tally.record('sessionEnd', problem)
        if (problem) return problem
        break
      }
      case 'uiChecks':
        // SX-09 asks its question after Terminate, while the SCO is still shown.
        run.checkUi(checks)
        break
    }
  }
  return null
}

function judgeExpect(run: CaseRun, what: string): string | null {
  const { current, activities } = run.course.state
  switch (what) {
    case 'sessionEnds':
    case 'learnerAttemptEnds':
      return current === null ? null : `expected the session to end, current is ${current}`
    case 'contentRemovedSessionActive':
      // After abandon the activity is no longer active, yet the session goes on.
      return current !== null && activities[current]?.active !== true
        ? null
        : `expected content removed with the session active (current ${current})`
    case 'scoRemoved':
      return run.scoDone ? null : 'expected the SCO to be taken away'
    default:
      return `unknown expectation ${what}`
  }
}

/** Plays the whole case, grading every check into the run's tally; a wrong delivery ends it. */
export function driveCase(c: SeqCase, learner: LearnerGlobals): CaseOutcome {
  const run = new CaseRun(c, learner)
  const outcome = (): CaseOutcome => ({
    id: c.id,
    passed: run.tally.failures.length === 0,
    detail: run.tally.failures.join('; '),
    tally: run.tally,
  })
  if (runEvents(run, c.start.actions)) return outcome()
  let seen = 0
  for (const d of c.deliveries) {
    const ids = d.items.map((i) => i.identifier)
    if (run.count === seen || run.delivered === null || !ids.includes(run.delivered)) {
      const got = run.count === seen ? 'nothing' : run.delivered
      run.tally.record('delivery', `${d.key}: expected ${ids.join('|')}, delivered ${got}`)
      return outcome()
    }
    run.tally.record('delivery', null)
    seen = run.count
    const { course, delivered } = run
    if (d.uiChecksAt !== 'afterTerminate') run.checkUi(d.uiChecks)
    const carry = course.carry.get(delivered)
    const launch = { ...run.seqLaunch(delivered), ...(carry ? { carry } : {}) }
    const sco = playSco(course.items.get(delivered), d.steps, run.resumed, launch, run.tally)
    run.sco = sco
    run.scoDone = false
    const stop = runEvents(run, d.afterSteps, d.uiChecks)
    const next = sco.carry()
    if (next) course.carry.set(delivered, next)
    else course.carry.delete(delivered)
    if (stop) return outcome()
    if (!run.scoDone) run.terminate(null)
    if (d.next === null) {
      const further = run.count > seen ? `delivered ${run.delivered}` : null
      run.tally.record('sessionEnd', further && `${d.key}: expected nothing further, ${further}`)
    }
  }
  if (c.finalCheck) {
    const { current } = run.course.state
    run.tally.record('sessionEnd', current === null ? null : `session did not end (${current})`)
  }
  return outcome()
}
