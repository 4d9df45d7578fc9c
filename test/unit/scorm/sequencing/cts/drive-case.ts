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
  type NavigationOutcome,
  type NavigationRequest,
  processNavigationRequest,
  reportScoResults,
  requestAfterTerminate,
  type ScoResults,
  type TrackingState,
} from '../../../../../src/modules/scorm/sequencing/index.ts'
import { type ManifestItem, readManifestItems } from '../../cts/manifest-items.ts'
import { type PlayedSco, playSco } from './play-sco.ts'
import type { SeqCase, SeqEvent } from './seq-case.types.ts'

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
}

export interface CaseOutcome {
  id: string
  passed: boolean
  detail: string
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

function runEvents(run: CaseRun, events: SeqEvent[]): string | null {
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
      case 'expect':
        if (
          (e.what === 'sessionEnds' || e.what === 'learnerAttemptEnds') &&
          run.course.state.current !== null
        )
          return `expected the session to end, current is ${run.course.state.current}`
        break
      case 'uiChecks':
        // Questions for a human tester; nothing to drive.
        break
    }
  }
  return null
}

/** Plays the whole case; the first mismatch ends it. */
export function driveCase(c: SeqCase, learner: LearnerGlobals): CaseOutcome {
  const run = new CaseRun(c, learner)
  const fail = (detail: string): CaseOutcome => ({ id: c.id, passed: false, detail })
  const startProblem = runEvents(run, c.start.actions)
  if (startProblem) return fail(`start: ${startProblem}`)
  let seen = 0
  for (const d of c.deliveries) {
    const ids = d.items.map((i) => i.identifier)
    if (run.count === seen || run.delivered === null || !ids.includes(run.delivered)) {
      const got = run.count === seen ? 'nothing' : run.delivered
      return fail(`${d.key}: expected ${ids.join('|')}, delivered ${got}`)
    }
    seen = run.count
    const item = run.course.items.get(run.delivered)
    run.sco = playSco(item, d.steps, run.resumed)
    run.scoDone = false
    const problem = runEvents(run, d.afterSteps)
    if (problem) return fail(`${d.key}: ${problem}`)
    if (!run.scoDone) run.terminate(null)
    if (d.next === null && run.count > seen) {
      return fail(`${d.key}: expected nothing further, delivered ${run.delivered}`)
    }
  }
  if (c.finalCheck && run.course.state.current !== null) {
    return fail(`the sequencing session did not end (current ${run.course.state.current})`)
  }
  return { id: c.id, passed: true, detail: '' }
}
