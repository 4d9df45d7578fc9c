/**
 * What the player knows of the course at this moment. One object shared by the controller and
 * the parts it delegates to (the chrome, the sequenced moves), so all of them see the same
 * `busy` and `ended`.
 */
import type { ItemStatuses } from './item-status.ts'
import { createFlowNavigator, type NavItem, type Navigator } from './navigator.ts'
import type { SessionSummary, StartResponse } from './protocol.types.ts'
import type { SequencerNavigator } from './sequencer.navigator.ts'

export interface PlayerState {
  /** The start answer; undefined until `POST …/start` succeeded. */
  start: StartResponse | undefined
  /** The items in order; without the server's sequencer it also decides the moves. */
  nav: Navigator
  /**
   * SCORM 2004 under the server's sequencer (the start answer carries `ui`): every move is a
   * navigation request the server decides; `nav` then only lists the items.
   */
  seq: SequencerNavigator | undefined
  statuses: ItemStatuses | undefined
  /** The course's status from the server's latest answer to a commit. */
  course: SessionSummary | undefined
  /** A move is under way: clicks and after-Terminate actions wait for it. */
  busy: boolean
  /** The learner left the course: the end screen stays whatever finishes later. */
  ended: boolean
}

export function initialPlayerState(): PlayerState {
  return {
    start: undefined,
    nav: createFlowNavigator([]),
    seq: undefined,
    statuses: undefined,
    course: undefined,
    busy: false,
    ended: false,
  }
}

/** The server says the course is completed (from its answer to the latest commit). */
export function courseComplete(state: PlayerState): boolean {
  return state.course?.completion_status === 'completed'
}

/** The start answer's item, or the contents' entry of that id. */
export function itemOf(state: PlayerState, id: string): NavItem {
  const listed = state.nav.items.find((i) => i.id === id)
  if (listed) return listed
  const title = state.seq?.ui.toc.find((e) => e.id === id)?.title ?? id
  return { id, title, level: 0, launchable: true }
}
