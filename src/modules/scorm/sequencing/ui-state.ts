/**
 * What the player should show now: its navigation controls and the table of contents, as the
 * sequencing rules decide them (SN book §3.4 navigation controls, ADL's `adlnav:hideLMSUI`, the
 * `isvisible` attribute, the choice control mode and hidden-from-choice rules). Pure: the same
 * function backs the server's answer and the player's rendering.
 */
import { navigationRequestValidity, type RequestValidity } from './request-valid.ts'
import { sequencingRulesCheckProcess } from './rules/sequencing-rules.ts'
import {
  type ContextOptions,
  openContext,
  type SequencingContext,
} from './state/sequencing-context.ts'
import type { TrackingState } from './state/tracking-state.types.ts'
import type { ActivityTree } from './tree/activity-tree.types.ts'

/** A control the player may draw: `hidden` wins over `enabled`. */
export interface ControlState {
  enabled: boolean
  hidden: boolean
}

export interface TocEntry {
  id: string
  title: string
  /** Depth below the root (the root is 0). */
  depth: number
  /** Shown in the table of contents: `isvisible`, selected (selection controls), and neither
   * it nor an ancestor hidden from choice by a precondition rule. */
  visible: boolean
  /** A click on this entry would deliver something now: the choice request is valid and the
   * activity being shown does not forbid choice exit. */
  selectable: boolean
  current: boolean
  /** Activity Progress Status: an attempt has begun at some time. */
  attempted: boolean
  completed: boolean | null
  satisfied: boolean | null
}

export interface UiState {
  continue: ControlState
  previous: ControlState
  exit: ControlState
  exitAll: ControlState
  suspendAll: ControlState
  abandon: ControlState
  abandonAll: ControlState
  /** The table of contents offers a visible choice below the root, and shows more than one
   * activity (a one-SCO course has no table of contents: CTS cases CM-11, SX-08a/b). */
  tocEnabled: boolean
  /** Preorder, root first (the player usually omits the root). */
  toc: TocEntry[]
  /** The answers behind the controls, also those of adl.nav.request_valid.*. */
  validity: RequestValidity
}

/**
 * The UI for the current state. hideLMSUI is read from the current activity (the item being
 * shown). Continue counts as enabled when it would end the course at the end of the flow.
 */
export function uiState(
  tree: ActivityTree,
  state: TrackingState,
  opts: Pick<ContextOptions, 'globals'> = {},
): UiState {
  const validity = navigationRequestValidity(tree, state, opts)
  const current = state.current
  const hide = new Set(current === null ? [] : (tree.activities[current]?.hideLmsUi ?? []))
  const inSession = current !== null
  const control = (name: string, enabled: boolean): ControlState => ({
    enabled: inSession && enabled,
    hidden: hide.has(name),
  })
  const toc = tocEntries(openContext(tree, state, opts), validity)
  return {
    continue: control('continue', continueOffered(tree, current)),
    previous: control('previous', validity.previous),
    exit: control('exit', state.activities[current ?? '']?.active === true),
    exitAll: control('exitAll', true),
    suspendAll: control('suspendAll', true),
    abandon: control('abandon', state.activities[current ?? '']?.active === true),
    abandonAll: control('abandonAll', true),
    tocEnabled: tocOffered(toc),
    toc,
    validity,
  }
}

/**
 * The table of contents in preorder. Two rules come from ADL's reference LMS, whose UI the CTS
 * checks: an activity hidden from choice takes its subtree out of the table (CM-07c, MS-07),
 * and while the shown activity is active with choiceExit false the table offers nothing
 * (CM-07a, validateRequests).
 */
/**
 * Continue is offered whenever the shown activity's parent flows (NB.2.1), even where the flow
 * would find nothing to deliver: pressing it then ends the course or shows the reason. ADL's
 * LMS does the same ("always provide a Continue button in a flow cluster"; CTS case CM-07d).
 * adl.nav.request_valid.continue stays the full dry run (`validity.continue`).
 */
function continueOffered(tree: ActivityTree, current: string | null): boolean {
  const parent = current === null ? null : tree.activities[current]?.parent
  return parent != null && tree.activities[parent]?.controlMode.flow === true
}

function tocOffered(toc: TocEntry[]): boolean {
  const shown = toc.filter((e) => e.depth > 0 && e.visible)
  return shown.length > 1 && shown.some((e) => e.selectable)
}

function tocEntries(ctx: SequencingContext, validity: RequestValidity): TocEntry[] {
  const { tree, state } = ctx
  const current = state.current
  const locked =
    current !== null &&
    state.activities[current]?.active === true &&
    tree.activities[current]?.controlMode.choiceExit === false
  const out: TocEntry[] = []
  const walk = (id: string, depth: number, shown: boolean) => {
    const a = tree.activities[id]
    if (!a) return
    const s = state.activities[id] ?? {}
    const hidden = sequencingRulesCheckProcess(ctx, id, 'pre', ['hiddenFromChoice']) !== null
    const visible = shown && a.isVisible && !hidden
    const objective = a.objectives[0] ? s.objectives?.[a.objectives[0].id] : undefined
    out.push({
      id,
      title: a.title,
      depth,
      visible,
      selectable: !locked && validity.choice[id] === true,
      current: current === id,
      attempted: s.progress === true,
      completed: s.progress === true && s.completed !== undefined ? s.completed : null,
      satisfied: objective?.satisfied ?? null,
    })
    const available = new Set(s.order ?? a.children)
    for (const c of a.children) walk(c, depth + 1, shown && !hidden && available.has(c))
  }
  walk(tree.root, 0, true)
  return out
}
