/**
 * The player's side of server-authoritative SCORM 2004 sequencing (DESIGN §12): the server's
 * sequencer decides every move (`POST …/navigation`); this keeps what it last said — the
 * controls and contents (`ui`) and the answers to adl.nav.request_valid.* — and turns it into
 * what the page shows. It never decides a move itself.
 */
import type { RequestValidity } from '../../modules/scorm/data-model/index.ts'
import type { AfterTerminate } from './after-terminate.ts'
import type { ItemMark } from './contents.view.ts'
import type { NavigationRequestName, RequestValidAnswers, SequencingUi } from './protocol.types.ts'

/** A navigation request with its target (choice, jump). */
export interface SequencerMove {
  readonly request: NavigationRequestName
  readonly target?: string
}

/** One control as drawn: `hidden` wins over `enabled`. */
export interface ControlView {
  readonly enabled: boolean
  readonly hidden: boolean
}

export interface SequencedControls {
  readonly previous: ControlView
  readonly continue: ControlView
  readonly exit: ControlView
  readonly exitAll: ControlView
  readonly suspendAll: ControlView
}

/** One line of the contents, in tree order, the root (the course itself) first. */
export interface ContentsEntry {
  readonly id: string
  readonly title: string
  /** Drawing depth: 0 for the root and its children, hidden ancestors not counted. */
  readonly level: number
  /** Has entries below it (a cluster). */
  readonly cluster: boolean
  /** A click would deliver something now. */
  readonly selectable: boolean
  readonly current: boolean
  readonly mark: ItemMark
}

export interface SequencerNavigator {
  readonly ui: SequencingUi
  /** Takes the sequencer's latest word: after each delivery or navigation answer. */
  update(ui: SequencingUi, requestValid?: RequestValidAnswers): void
  /** Answers adl.nav.request_valid.* for the SCO, from the delivery's `request_valid`. */
  requestValid(
    request: 'continue' | 'previous' | 'choice' | 'jump',
    target?: string,
  ): RequestValidity
  /** The controls as drawn; with `idle` false (a move under way) all are disabled. */
  controls(idle: boolean): SequencedControls
  contents(): ContentsEntry[]
  /** Whether the shown controls offer this move (a click on a disabled one does nothing). */
  offers(move: SequencerMove): boolean
  /** The activity the sequencer has delivered (the contents' current entry), if any. */
  currentId(): string | undefined
}

export function createSequencerNavigator(initial: SequencingUi): SequencerNavigator {
  let ui = initial
  let valid: RequestValidAnswers | undefined
  const shown = (c: { enabled: boolean; hidden: boolean }, idle: boolean): ControlView => ({
    enabled: idle && c.enabled && !c.hidden,
    hidden: c.hidden,
  })
  const answers = () => valid ?? ui.validity
  return {
    get ui() {
      return ui
    },
    update(next, requestValid) {
      ui = next
      valid = requestValid
    },
    requestValid(request, target) {
      const a = answers()
      if (!a) return 'unknown'
      if (request === 'continue' || request === 'previous') return a[request] ? 'true' : 'false'
      return target !== undefined && a[request][target.trim()] === true ? 'true' : 'false'
    },
    controls(idle) {
      return {
        previous: shown(ui.previous, idle),
        continue: shown(ui.continue, idle),
        exit: shown(ui.exit, idle),
        exitAll: shown(ui.exitAll, idle),
        suspendAll: shown(ui.suspendAll, idle),
      }
    },
    contents: () => contentsOf(ui),
    offers(move) {
      switch (move.request) {
        case 'continue':
        case 'previous':
        case 'exit':
        case 'exitAll':
        case 'suspendAll':
          return shown(ui[move.request], true).enabled
        case 'choice':
          return ui.tocEnabled && ui.toc.some((e) => e.id === move.target && e.selectable)
        default:
          return false
      }
    },
    currentId: () => ui.toc.find((e) => e.current)?.id,
  }
}

/**
 * The contents as the sequencer shows them: entries not `visible` are left out, and the
 * entries below an invisible one move up a level instead of hanging under nothing. The root
 * comes first, over its children rather than above their level: it is the course, a heading
 * unless choosing it is allowed (ADL's CTS asks whether it is selectable: CM-07d, CM-04b).
 */
export function contentsOf(ui: SequencingUi): ContentsEntry[] {
  const out: ContentsEntry[] = []
  const toc = ui.toc
  // Depths of the hidden ancestors of the entry being read (a stack: the list is in preorder).
  const hidden: number[] = []
  for (const [i, e] of toc.entries()) {
    while (hidden.length > 0 && (hidden.at(-1) as number) >= e.depth) hidden.pop()
    if (!e.visible) {
      hidden.push(e.depth)
      continue
    }
    out.push({
      id: e.id,
      title: e.title,
      level: Math.max(0, e.depth - 1 - hidden.length),
      cluster: (toc[i + 1]?.depth ?? 0) > e.depth,
      selectable: e.selectable,
      current: e.current,
      mark: markOf(e),
    })
  }
  return out
}

function markOf(e: SequencingUi['toc'][number]): ItemMark {
  if (e.satisfied === true) return 'passed'
  if (e.satisfied === false) return 'failed'
  if (e.completed === true) return 'completed'
  return e.attempted ? 'visited' : 'none'
}

/**
 * The request a terminated SCO leaves for the sequencer (its adl.nav.request, or Exit All for
 * cmi.exit time-out/logout), or undefined when it asked for nothing and the learner decides.
 */
export function moveAfterTerminate(action: AfterTerminate): SequencerMove | undefined {
  switch (action.kind) {
    case 'continue':
    case 'previous':
      return { request: action.kind }
    case 'choice':
    case 'jump':
      return { request: action.kind, target: action.target }
    case 'end':
      return { request: action.reason }
    case 'stay':
      return undefined
  }
}
