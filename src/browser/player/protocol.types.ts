/**
 * Shapes of the content-origin runtime protocol as the player sees them
 * (docs/runtime-protocol.md). Only what the player reads is typed; the server may send more.
 */
import type { Delta, LaunchData, ScormVersion } from '../../modules/scorm/data-model/index.ts'

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
}

export interface DeliveryResponse {
  readonly delivery_id: string
  readonly item_id: string
  readonly scorm_version: ScormVersion
  readonly launch_data: LaunchData
  readonly href?: string | null
  /** Same shape as in the start response; when present it wins. */
  readonly data_model_options?: Readonly<Record<string, number | boolean | undefined>>
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
