/**
 * What a navigation request answers (docs/runtime-protocol.md §6), and what one run of it in a
 * transaction decided; the player's UI state is computed from that after COMMIT, off the locks.
 */
import type {
  GlobalObjectiveMap,
  RequestValidity,
  TrackingState,
  UiState,
} from '../scorm/sequencing/index.ts'
import { uiState } from '../scorm/sequencing/index.ts'
import type { Sequencing } from './attempt-sequencing.ts'
import type { DeliveryAnswer } from './delivery-launch.ts'

/** A delivery answer; SCORM 2004 with sequencing adds what the player shows and answers. */
export interface SequencedDelivery extends DeliveryAnswer {
  /** uiState after this delivery: controls and table of contents. */
  ui?: UiState
  /** adl.nav.request_valid.* for this delivery (the answers behind `ui`). */
  request_valid?: RequestValidity
}

export interface NavigationEnd {
  reason: 'completed' | 'suspended' | 'exited'
  /** The learner's attempt is over: its launch URL reopens it in review, a launch starts anew. */
  attempt_ended: boolean
}

/** `POST …/navigation`'s answer (docs/runtime-protocol.md §6). */
export interface NavigationAnswer {
  delivery: SequencedDelivery | null
  ended: NavigationEnd | null
  /** uiState now; null for content without a sequencer (SCORM 1.2 simple flow). */
  ui: UiState | null
}

/** The sequencer's state after a run, from which the player's UI state is computed. */
export interface EngineAfter {
  seq: Sequencing
  state: TrackingState
  globals: GlobalObjectiveMap
}

/** What one run in a transaction decided; null `engine` for content without a sequencer. */
export interface Decided {
  delivery: DeliveryAnswer | null
  ended: NavigationEnd | null
  engine: EngineAfter | null
}

export function uiOf(engine: EngineAfter): UiState {
  return uiState(engine.seq.tree, engine.state, { globals: engine.globals })
}

export function withUi(delivery: DeliveryAnswer, ui: UiState | null): SequencedDelivery {
  return ui ? { ...delivery, ui, request_valid: ui.validity } : delivery
}
