/**
 * Where the learner is in the course and where they may go. The player only talks to this
 * interface, so a full SCORM 2004 sequencing engine can replace the simple flow/choice navigator
 * below without touching the page.
 */
import type { RequestValidity } from '../../modules/scorm/data-model/index.ts'
import type { AfterTerminate } from './after-terminate.ts'

export interface NavItem {
  readonly id: string
  readonly title: string
  /** Depth in the organization, 0 for top-level items. */
  readonly level: number
  /** False for headings: they are shown in the contents but never launched. */
  readonly launchable: boolean
  readonly href?: string | null
  /**
   * False keeps the item out of the contents (`isvisible="false"`); flow still delivers it, as
   * SCORM 2004 CAM and 1.2 CAM both make isvisible a matter of display only. Default true.
   */
  readonly visible?: boolean
}

export interface Navigator {
  readonly items: readonly NavItem[]
  /** The item being delivered (always launchable); undefined when the course has none. */
  readonly current: NavItem | undefined
  canNext(): boolean
  canPrevious(): boolean
  canChoose(id: string): boolean
  /** Each move returns the new current item, or undefined (and stays put) when not allowed. */
  next(): NavItem | undefined
  previous(): NavItem | undefined
  choose(id: string): NavItem | undefined
  /** A SCO's jump request: like choose, but allowed even when choice is off. */
  jump(id: string): NavItem | undefined
  /** Answers `adl.nav.request_valid.*` for the SCO. */
  requestValid(
    request: 'continue' | 'previous' | 'choice' | 'jump',
    target?: string,
  ): RequestValidity
}

export interface FlowNavigatorOptions {
  /** Previous/continue allowed. Default true. */
  readonly flow?: boolean
  /** Picking any item from the contents allowed. Default true. */
  readonly choice?: boolean
  /**
   * Item to start on; a heading, an unknown id or an unavailable item falls back to the first
   * available launchable item.
   */
  readonly startId?: string | null
  /**
   * Whether an item may be entered now (SCORM 1.2 prerequisites), asked afresh on every move:
   * Continue and Previous pass over unavailable items, choice refuses them. Default: all are.
   */
  readonly available?: (item: NavItem) => boolean
}

/** Linear order over the launchable items, skipping headings; no sequencing rules. */
export function createFlowNavigator(
  items: readonly NavItem[],
  options: FlowNavigatorOptions = {},
): Navigator {
  const flow = options.flow !== false
  const choice = options.choice !== false
  const available = options.available ?? (() => true)
  const launchable = items.filter((i) => i.launchable)
  const byId = new Map(launchable.map((item, index) => [item.id, index]))
  const open = (i: number) => launchable[i] !== undefined && available(launchable[i] as NavItem)
  /** The nearest available item from `from` in direction `step`; undefined when none. */
  const seek = (from: number, step: 1 | -1) => {
    for (let i = from; i >= 0 && i < launchable.length; i += step) if (open(i)) return i
    return undefined
  }
  const start = options.startId != null ? byId.get(options.startId) : undefined
  let index = (start !== undefined && open(start) ? start : seek(0, 1)) ?? 0

  const current = () => launchable[index]
  const nextIndex = () => (flow ? seek(index + 1, 1) : undefined)
  const previousIndex = () => (flow && index > 0 ? seek(index - 1, -1) : undefined)
  const canNext = () => nextIndex() !== undefined
  const canPrevious = () => previousIndex() !== undefined
  const canChoose = (id: string) => {
    const i = byId.get(id)
    return choice && i !== undefined && open(i)
  }
  const moveTo = (to: number | undefined) => {
    if (to === undefined || launchable[to] === undefined) return undefined
    index = to
    return current()
  }

  return {
    items,
    get current() {
      return current()
    },
    canNext,
    canPrevious,
    canChoose,
    next: () => moveTo(nextIndex()),
    previous: () => moveTo(previousIndex()),
    choose: (id) => (canChoose(id) ? moveTo(byId.get(id)) : undefined),
    jump: (id) => moveTo(byId.get(id)),
    requestValid(request, target) {
      switch (request) {
        case 'continue':
          return canNext() ? 'true' : 'false'
        case 'previous':
          return canPrevious() ? 'true' : 'false'
        case 'choice':
          return target !== undefined && canChoose(target) ? 'true' : 'false'
        // A jump ignores the choice control mode (SCORM 2004 4th ed. SN); the target must exist.
        case 'jump':
          return target !== undefined && byId.has(target) ? 'true' : 'false'
      }
    },
  }
}

/**
 * The move a terminated SCO's request makes on the flow navigator, or undefined when it asked
 * for nothing, for the end, or for a move the navigator does not allow (continue on the last
 * item): the learner then decides.
 */
export function flowMoveAfterTerminate(
  action: AfterTerminate,
  nav: Navigator,
): (() => NavItem | undefined) | undefined {
  switch (action.kind) {
    case 'continue':
      return nav.canNext() ? () => nav.next() : undefined
    case 'previous':
      return nav.canPrevious() ? () => nav.previous() : undefined
    case 'choice':
      return nav.canChoose(action.target) ? () => nav.choose(action.target) : undefined
    case 'jump':
      return nav.requestValid('jump', action.target) === 'true'
        ? () => nav.jump(action.target)
        : undefined
    case 'end':
    case 'stay':
      return undefined
  }
}
