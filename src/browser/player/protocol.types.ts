/**
 * Shapes of the content-origin runtime protocol as the player sees them
 * (docs/runtime-protocol.md). Only what the player reads is typed; the server may send more.
 */
import type { Delta, LaunchData, ScormVersion } from '../../modules/scorm/data-model/index.ts'
import type { UiState } from '../../modules/scorm/sequencing/index.ts'

/** What the sequencer decided the player may show (`uiState`), as JSON from the server. */
export type SequencingUi = UiState

/** The requests `POST …/navigation` takes (SCORM 2004 navigation requests). */
export type NavigationRequestName =
  | 'start'
  | 'resumeAll'
  | 'continue'
  | 'previous'
  | 'choice'
  | 'jump'
  | 'exit'
  | 'exitAll'
  | 'suspendAll'
  | 'abandon'
  | 'abandonAll'

/** adl.nav.request_valid.* as the sequencer answered them at the delivery. */
export interface RequestValidAnswers {
  readonly continue: boolean
  readonly previous: boolean
  readonly choice: Readonly<Record<string, boolean>>
  readonly jump: Readonly<Record<string, boolean>>
}

export interface StartItem {
  readonly id: string
  readonly title: string
  /** 'sco' | 'asset' | 'heading'… — informational; `launchable` decides. */
  readonly kind?: string
  /** Depth in the organization, 0 for top-level items. */
  readonly level: number
  readonly href?: string | null
  /** False for headings (items without a resource). */
  readonly launchable: boolean
  /** The manifest's `isvisible`; false keeps the item out of the contents. Default true. */
  readonly visible?: boolean
  /** SCORM 1.2 `adlcp:prerequisites` (aicc_script); absent or null when none. */
  readonly prerequisites?: string | null
  /** The item's stored status from earlier sittings; absent before its first launch. */
  readonly completion_status?: string
  readonly success_status?: string
}

export interface StartResponse {
  readonly session_id: string
  readonly attempt_id: string
  readonly runtime_token: string
  readonly title: string
  readonly content_type: string
  /** null for content that is not SCORM (the player then has nothing to run). */
  readonly scorm_version: ScormVersion | null
  /** Path prefix of the package's files, ending in '/': `/c/{content token}/`. */
  readonly content_base: string
  readonly items: readonly StartItem[]
  readonly navigation?: { readonly flow?: boolean; readonly choice?: boolean }
  readonly current_item_id?: string | null
  /** Accepts the data model's own names and the protocol document's `suspendDataMax12`. */
  readonly data_model_options?: Readonly<Record<string, number | boolean | undefined>>
  /** 'review' for a finished attempt: shown as it was, nothing stored. */
  readonly mode?: string
  /**
   * SCORM 2004 under the server's sequencer: the controls and contents now. Its presence is what
   * makes the player send every navigation to the server (`POST …/navigation`).
   */
  readonly ui?: SequencingUi
  /** The attempt was left with Suspend All: the player opens it with Resume All. */
  readonly suspended?: boolean
}

export interface DeliveryResponse {
  readonly delivery_id: string
  readonly item_id: string
  readonly scorm_version: ScormVersion
  readonly launch_data: LaunchData
  readonly href?: string | null
  /** Same shape as in the start response; when present it wins. */
  readonly data_model_options?: Readonly<Record<string, number | boolean | undefined>>
  /** SCORM 2004 under the sequencer: the controls and contents for this delivery. */
  readonly ui?: SequencingUi
  readonly request_valid?: RequestValidAnswers
}

/** Body of `POST …/navigation`. */
export interface NavigationBody {
  readonly request: NavigationRequestName
  /** The item of a choice or jump. */
  readonly target?: string
  /** The delivery being left; its outbox is drained before the call. */
  readonly delivery_id?: string
}

/** Why a sequencing session ended. */
export type EndedReason = 'completed' | 'suspended' | 'exited'

/** The answer to `POST …/navigation`. */
export interface NavigationAnswer {
  /** The item to launch now, or null (the session ended, or the learner must pick). */
  readonly delivery: DeliveryResponse | null
  readonly ended: { readonly reason: EndedReason; readonly attempt_ended: boolean } | null
  /** The controls and contents now; null once the session has ended. */
  readonly ui: SequencingUi | null
}

/** A SetValue the data model refused, reported with the next commit (for support, not stored). */
export interface RefusedCall {
  readonly element: string
  /** Cut to REFUSED_VALUE_MAX characters. */
  readonly value: string
  readonly error_code: number
}

export interface CommitBody {
  readonly token?: string
  readonly delivery_id: string
  readonly delta: Delta
  /** SetValue calls refused since the previous commit; at most REFUSED_PER_COMMIT. */
  readonly refused?: readonly RefusedCall[]
}

/** The course's status after a commit (`session` in the commit answer). */
export interface SessionSummary {
  readonly completion_status?: string
  readonly success_status?: string
}
