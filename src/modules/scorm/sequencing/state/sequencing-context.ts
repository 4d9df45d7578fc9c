/**
 * The working set every process reads and writes: the tree, a private copy of the tracking
 * state and of the global objectives, and the random source. Processes mutate the copy; the
 * exported entry points copy on the way in and hand the result back, so callers see pure
 * functions.
 */
import type { Activity, ActivityTree } from '../tree/activity-tree.types.ts'
import type {
  ActivityState,
  GlobalObjectiveMap,
  ObjectiveState,
  TrackingState,
} from './tracking-state.types.ts'

export interface SequencingContext {
  tree: ActivityTree
  state: TrackingState
  globals: GlobalObjectiveMap
  /** Uniform in [0, 1), like Math.random (the default). */
  random: () => number
  /** Global objectives written since the readers were last rolled up. */
  changedGlobals: Set<string>
}

export interface ContextOptions {
  globals?: GlobalObjectiveMap
  random?: () => number
}

export function createTrackingState(): TrackingState {
  return { v: 1, current: null, suspended: null, activities: {} }
}

/** A context over deep copies of `state` and `globals` (both plain JSON). */
export function openContext(
  tree: ActivityTree,
  state: TrackingState,
  opts: ContextOptions = {},
): SequencingContext {
  return {
    tree,
    state: cloneState(state),
    globals: cloneGlobals(opts.globals ?? {}),
    random: opts.random ?? Math.random,
    changedGlobals: new Set(),
  }
}

/** A copy of `ctx` to try a request on without touching `ctx` (request validity). */
export function forkContext(ctx: SequencingContext): SequencingContext {
  return {
    ...ctx,
    state: cloneState(ctx.state),
    globals: cloneGlobals(ctx.globals),
    changedGlobals: new Set(ctx.changedGlobals),
  }
}

/**
 * Deep copy of a tracking state, written out for its known shape: every request copies the
 * whole state, and this is several times faster than structuredClone on a 1 000-activity
 * course (bench/sequencing.bench.ts).
 */
export function cloneState(state: TrackingState): TrackingState {
  const activities: Record<string, ActivityState> = {}
  for (const id in state.activities) {
    const a = state.activities[id] as ActivityState
    const copy: ActivityState = { ...a }
    if (a.order) copy.order = [...a.order]
    if (a.objectives) {
      const objectives: Record<string, ObjectiveState> = {}
      for (const o in a.objectives) objectives[o] = { ...a.objectives[o] }
      copy.objectives = objectives
    }
    activities[id] = copy
  }
  return { ...state, activities }
}

export function cloneGlobals(globals: GlobalObjectiveMap): GlobalObjectiveMap {
  const out: GlobalObjectiveMap = {}
  for (const id in globals) out[id] = { ...globals[id] }
  return out
}

export function def(ctx: SequencingContext, id: string): Activity {
  const a = ctx.tree.activities[id]
  if (!a) throw new Error(`Unknown activity ${id}`)
  return a
}

export function st(ctx: SequencingContext, id: string): ActivityState {
  let s = ctx.state.activities[id]
  if (!s) {
    s = {}
    ctx.state.activities[id] = s
  }
  return s
}

export function isLeaf(ctx: SequencingContext, id: string): boolean {
  return def(ctx, id).children.length === 0
}

/** Available Children (SN §4.2.1.1): the selected, possibly reordered, children. */
export function availableChildren(ctx: SequencingContext, id: string): string[] {
  return ctx.state.activities[id]?.order ?? def(ctx, id).children
}

/** The activity and its ancestors, the activity first, the root last. */
export function pathToRoot(ctx: SequencingContext, id: string): string[] {
  const out: string[] = []
  for (let a: string | null = id; a !== null; a = def(ctx, a).parent) out.push(a)
  return out
}

export function isAncestor(ctx: SequencingContext, ancestor: string, id: string): boolean {
  return pathToRoot(ctx, id).slice(1).includes(ancestor)
}

export function commonAncestor(ctx: SequencingContext, a: string, b: string): string {
  const ofB = new Set(pathToRoot(ctx, b))
  return pathToRoot(ctx, a).find((x) => ofB.has(x)) ?? ctx.tree.root
}

/** Activities of the tree in preorder over the available children. */
export function preorder(ctx: SequencingContext): string[] {
  const out: string[] = []
  const walk = (id: string) => {
    out.push(id)
    for (const c of availableChildren(ctx, id)) walk(c)
  }
  walk(ctx.tree.root)
  return out
}

/** True when `b` comes after `a` in a preorder traversal of the tree (over the available
 * children). Walks the two paths to the root, not the tree: choice asks this once per target,
 * and request validity asks it for every activity. */
export function isForward(ctx: SequencingContext, a: string, b: string): boolean {
  if (a === b) return false
  const up = pathToRoot(ctx, a)
  const down = pathToRoot(ctx, b)
  if (down.includes(a)) return true // b lies inside a
  if (up.includes(b)) return false // a lies inside b
  const ofA = new Set(up)
  const i = down.findIndex((x) => ofA.has(x))
  const ancestor = down[i] as string
  const siblings = availableChildren(ctx, ancestor)
  const fromA = up[up.indexOf(ancestor) - 1] as string
  const fromB = down[i - 1] as string
  return siblings.indexOf(fromB) > siblings.indexOf(fromA)
}

export function isActive(ctx: SequencingContext, id: string): boolean {
  return ctx.state.activities[id]?.active === true
}

export function isSuspended(ctx: SequencingContext, id: string): boolean {
  return ctx.state.activities[id]?.suspended === true
}

/** Begins a new attempt's bookkeeping: the stamp that makes older descendant data stale. */
export function stampAttempt(ctx: SequencingContext, id: string): void {
  ctx.state.attempts = (ctx.state.attempts ?? 0) + 1
  st(ctx, id).since = ctx.state.attempts
}
