/**
 * What the player knows of each item's status: from the start response (earlier sittings) and
 * then from the SCO's own commits in this page. It answers the contents' marks and SCORM 1.2
 * prerequisites (`adlcp:prerequisites`), which decide whether an item may be entered.
 */
import {
  type DataModelState,
  endSession,
  type ScormVersion,
} from '../../modules/scorm/data-model/index.ts'
import {
  type LessonStatus,
  lessonStatusOf,
  prerequisitesMet,
} from '../../modules/scorm/prerequisites/index.ts'
import type { ItemMark, ItemState } from './contents.view.ts'
import type { NavItem } from './navigator.ts'
import type { StartResponse } from './protocol.types.ts'

export interface StatusItem extends NavItem {
  readonly prerequisites?: string | null
  readonly completion_status?: string
  readonly success_status?: string
}

interface Known {
  status: LessonStatus
  /** Opened at least once (this page or, by its stored status, an earlier one). */
  visited: boolean
}

export class ItemStatuses {
  readonly #version: ScormVersion
  readonly #items: readonly StatusItem[]
  readonly #known = new Map<string, Known>()

  constructor(version: ScormVersion, items: readonly StatusItem[]) {
    this.#version = version
    this.#items = items
    for (const item of items) {
      if (!item.launchable) continue
      const status = lessonStatusOf(item.completion_status, item.success_status)
      this.#known.set(item.id, { status, visited: status !== 'not attempted' })
    }
  }

  visited(id: string): void {
    const known = this.#known.get(id)
    if (known) known.visited = true
  }

  /**
   * The SCO's state after one of its commits. A final commit is read the way the server ends the
   * session (1.2: the LMS sets "completed" when the SCO finishes without a status; 2004: the
   * completion threshold and passing score decide), an ordinary one as the SCO set it.
   */
  update(id: string, state: DataModelState, final: boolean): void {
    const known = this.#known.get(id)
    if (!known) return
    const v = state.values
    if (final) {
      const outcome = endSession(state.version, state)
      known.status = outcome.lessonStatus
        ? (outcome.lessonStatus as LessonStatus)
        : lessonStatusOf(outcome.completionStatus, outcome.successStatus)
    } else if (state.version === '1.2') {
      known.status = asLessonStatus(v['cmi.core.lesson_status']) ?? known.status
    } else {
      known.status = lessonStatusOf(v['cmi.completion_status'], v['cmi.success_status'])
    }
    known.visited = true
  }

  /**
   * An item's status for prerequisites: its own for a SCO; for a heading (AICC block) completed
   * when every SCO under it is passed or completed, incomplete once any was opened.
   */
  statusOf = (id: string): LessonStatus | undefined => {
    const own = this.#known.get(id)
    if (own) return own.status
    const index = this.#items.findIndex((i) => i.id === id)
    const heading = this.#items[index]
    if (!heading) return undefined
    const inside: Known[] = []
    for (const item of this.#items.slice(index + 1)) {
      if (item.level <= heading.level) break
      const k = this.#known.get(item.id)
      if (k) inside.push(k)
    }
    if (inside.length > 0 && inside.every((k) => done(k.status))) return 'completed'
    return inside.some((k) => k.visited) ? 'incomplete' : 'not attempted'
  }

  /** Whether an item may be entered: SCORM 1.2 prerequisites (2004 has none to evaluate here). */
  available = (item: NavItem): boolean => {
    if (this.#version !== '1.2') return true
    const script = (item as StatusItem).prerequisites
    return prerequisitesMet(script, this.statusOf).met
  }

  state(item: NavItem): ItemState {
    return { mark: this.mark(item.id), locked: !this.available(item) }
  }

  mark(id: string): ItemMark {
    const known = this.#known.get(id)
    if (!known) return 'none'
    switch (known.status) {
      case 'passed':
      case 'completed':
      case 'failed':
        return known.status
      case 'incomplete':
      case 'browsed':
        return 'visited'
      case 'not attempted':
        return known.visited ? 'visited' : 'none'
    }
  }
}

const done = (s: LessonStatus) => s === 'passed' || s === 'completed'

function asLessonStatus(value: string | undefined): LessonStatus | undefined {
  switch (value) {
    case 'passed':
    case 'completed':
    case 'failed':
    case 'incomplete':
    case 'browsed':
    case 'not attempted':
      return value
    default:
      return undefined
  }
}

/** The start answer's items as the contents and the item statuses take them. */
export function statusItemsOf(start: StartResponse): StatusItem[] {
  return start.items.map((i) => ({
    id: i.id,
    title: i.title,
    level: i.level,
    launchable: i.launchable,
    href: i.href ?? null,
    visible: i.visible !== false,
    prerequisites: i.prerequisites ?? null,
    ...(i.completion_status !== undefined && { completion_status: i.completion_status }),
    ...(i.success_status !== undefined && { success_status: i.success_status }),
  }))
}
