import type { Cmi5Au, Cmi5Structure } from '../scorm/manifest/manifest.types.ts'

/** What an AU has reported within one registration (over all its sessions). */
export interface AuProgress {
  completed: boolean
  passed: boolean
  failed: boolean
  waived: boolean
  /** The latest score sent with passed or failed. */
  score: {
    scaled: number | null
    raw: number | null
    min: number | null
    max: number | null
  } | null
}

/** A registration's moveOn state, stored as JSON (cmi5_registrations.state). */
export interface RegistrationState {
  /** By AU index in course order. */
  aus: Record<string, AuProgress>
  /** Ids (from cmi5.xml) of the blocks already satisfied. */
  satisfiedBlocks: string[]
  courseSatisfied: boolean
}

export function emptyProgress(): AuProgress {
  return { completed: false, passed: false, failed: false, waived: false, score: null }
}

export function emptyState(): RegistrationState {
  return { aus: {}, satisfiedBlocks: [], courseSatisfied: false }
}

/** cmi5 §9.3 / §13.1.4: whether an AU's moveOn criterion is met (a waived AU always is). */
export function auSatisfied(au: Cmi5Au, p: AuProgress): boolean {
  if (p.waived) return true
  switch (au.moveOn) {
    case 'NotApplicable':
      return true
    case 'Completed':
      return p.completed
    case 'Passed':
      return p.passed
    case 'CompletedAndPassed':
      return p.completed && p.passed
    case 'CompletedOrPassed':
      return p.completed || p.passed
  }
}

/** What became satisfied since the state was last evaluated, innermost blocks first. */
export interface MoveOnChange {
  blocks: Array<{ index: number; id: string }>
  course: boolean
  state: RegistrationState
}

/**
 * Evaluates blocks and the course (cmi5 §9.3.9: a block is satisfied when everything in it is,
 * the course when everything at its top level is) and returns what changed; never un-satisfies.
 */
export function evaluateMoveOn(structure: Cmi5Structure, state: RegistrationState): MoveOnChange {
  const auById = new Map(structure.aus.map((au, i) => [au.id, i]))
  const blockById = new Map(structure.blocks.map((b) => [b.id, b]))
  const memo = new Map<string, boolean>()
  const satisfied = (id: string): boolean => {
    const known = memo.get(id)
    if (known !== undefined) return known
    const auIndex = auById.get(id)
    let result: boolean
    if (auIndex !== undefined) {
      const au = structure.aus[auIndex] as Cmi5Au
      result = auSatisfied(au, state.aus[String(auIndex)] ?? emptyProgress())
    } else {
      const block = blockById.get(id)
      result = block ? block.children.every(satisfied) : true
    }
    memo.set(id, result)
    return result
  }
  const already = new Set(state.satisfiedBlocks)
  const blocks: MoveOnChange['blocks'] = []
  // Post-order: a block's inner blocks are reported before it.
  const visit = (id: string) => {
    const block = blockById.get(id)
    if (!block) return
    for (const child of block.children) visit(child)
    if (!already.has(id) && satisfied(id)) {
      blocks.push({ index: structure.blocks.indexOf(block), id })
    }
  }
  const inBlocks = new Set(structure.blocks.flatMap((b) => b.children))
  const top = [
    ...structure.blocks.filter((b) => !inBlocks.has(b.id)).map((b) => b.id),
    ...structure.aus.filter((au) => au.blockId === null).map((au) => au.id),
  ]
  for (const id of top) visit(id)
  const course = !state.courseSatisfied && top.every(satisfied)
  return {
    blocks,
    course,
    state: {
      ...state,
      satisfiedBlocks: [...state.satisfiedBlocks, ...blocks.map((b) => b.id)],
      courseSatisfied: state.courseSatisfied || course,
    },
  }
}

/** The Courseport session's status from a registration (session-status.ts vocabulary). */
export interface RegistrationStatus {
  completion: 'not attempted' | 'incomplete' | 'completed'
  success: 'unknown' | 'passed' | 'failed'
  score: { scaled: number | null; raw: number | null; min: number | null; max: number | null }
  progressPercent: number
}

/**
 * The course satisfied is the session completed; passed when it is satisfied and an AU passed,
 * failed when an AU failed and did not pass since (and was not waived). One AU's score as is,
 * several AUs' scaled scores averaged.
 */
export function registrationStatus(
  structure: Cmi5Structure,
  state: RegistrationState,
  launched: boolean,
): RegistrationStatus {
  const progress = structure.aus.map((_, i) => state.aus[String(i)] ?? emptyProgress())
  const done = structure.aus.filter((au, i) => auSatisfied(au, progress[i] ?? emptyProgress()))
  const anyReported = progress.some((p) => p.completed || p.passed || p.failed || p.waived)
  const completion = state.courseSatisfied
    ? 'completed'
    : launched || anyReported
      ? 'incomplete'
      : 'not attempted'
  const failed = progress.some((p) => p.failed && !p.passed && !p.waived)
  const passed = progress.some((p) => p.passed)
  const success = failed ? 'failed' : state.courseSatisfied && passed ? 'passed' : 'unknown'
  const scored = progress.flatMap((p) => (p.score ? [p.score] : []))
  let score: RegistrationStatus['score'] = { scaled: null, raw: null, min: null, max: null }
  if (scored.length === 1 && scored[0]) score = scored[0]
  else if (scored.length > 1) {
    const scaled = scored.map((s) => s.scaled).filter((v): v is number => v !== null)
    const mean = scaled.length ? scaled.reduce((a, b) => a + b, 0) / scaled.length : null
    score = {
      scaled: mean === null ? null : Math.round(mean * 1e7) / 1e7,
      raw: null,
      min: null,
      max: null,
    }
  }
  const total = Math.max(structure.aus.length, 1)
  const progressPercent = state.courseSatisfied
    ? 100
    : Math.round((done.length / total) * 1000) / 10
  return { completion, success, score, progressPercent }
}
