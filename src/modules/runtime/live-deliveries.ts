import type { ScoStatesTable } from '../../infra/db/tables/sessions.ts'
import type { LaunchData, ModelBase, ModelWrites } from '../scorm/data-model/index.ts'
import type { Loaded } from './runtime.types.ts'

/**
 * What a commit needs to know about an open delivery: the rows it read and wrote last time.
 * Between commits nothing else writes them — a delivery's SCO row and the session's progress
 * change only through the delivery's own commits, and anything that starts another delivery
 * of the session ends this one first — so the next commit can start from here instead of
 * reading them again. The compare-and-set of the commit's SCO row UPDATE (the delivery still open
 * on it, at `lastSeq`) is what proves an entry current: if it fails, the entry is dropped and the
 * rows are read afresh.
 */
export interface LiveDelivery {
  readonly deliveryId: string
  readonly itemId: string
  readonly lastSeq: number
  readonly launchData: LaunchData
  /** The session and its package version as of `lastSeq`. */
  readonly loaded: Loaded
  /** The session's SCO rows as of `lastSeq`. */
  readonly states: ScoStatesTable[]
  /**
   * The delivery's data-model values as of `lastSeq`: its launch values plus its commits, with
   * their size (the data model's budget and the entry's weight start from it).
   */
  readonly model: ModelBase
  /** The SCO's record (`sco_values`) as of `lastSeq`. */
  readonly record: Readonly<Record<string, string>>
  /** Characters of `record` (element names plus values, `valuesChars`), kept as commits change it. */
  readonly recordChars: number
}

/**
 * What a commit changed in its delivery's values and in its SCO's record: folded into the
 * `model` and `record` of the entry it leaves when that entry is remembered — after the commit is
 * stored, never before.
 */
export interface DeliveryChanges {
  readonly writes: ModelWrites
  readonly record: Readonly<Record<string, string>>
}

/**
 * Folds a commit's changes into its entry, in place: the model and record are shared with the
 * entry the commit started from, which is superseded. A commit of the same delivery still in
 * flight from that entry then reads the later values, but its compare-and-set (on `lastSeq`)
 * fails and it rereads the rows, so nothing it read is ever written.
 */
function fold(entry: LiveDelivery, changes: DeliveryChanges): void {
  entry.model.advance(changes.writes)
  Object.assign(entry.record as Record<string, string>, changes.record)
}

/** Open deliveries remembered at most (oldest forgotten first); a forgotten one is reread. */
const DEFAULT_CAPACITY = 5_000
/** Characters of runtime data remembered at most (suspend data can be 64 000 per SCO). */
const DEFAULT_MAX_CHARS = 32 * 1024 * 1024

/** Roughly what an entry holds: its rows' carried values, its values and its SCO's record. */
export function weight(entry: LiveDelivery): number {
  let chars = entry.model.size + entry.recordChars
  for (const row of entry.states) chars += row.carry.length
  return chars
}

export class LiveDeliveries {
  readonly #entries = new Map<string, { entry: LiveDelivery; weight: number }>()
  readonly #capacity: number
  readonly #maxChars: number
  #chars = 0

  constructor(capacity = DEFAULT_CAPACITY, maxChars = DEFAULT_MAX_CHARS) {
    this.#capacity = capacity
    this.#maxChars = maxChars
  }

  get(deliveryId: string): LiveDelivery | undefined {
    return this.#entries.get(deliveryId)?.entry
  }

  /**
   * Keeps `entry`, with the `changes` of the commit that left it folded in, unless a later state
   * of the same delivery is already kept. Only for an entry whose commit is stored.
   */
  remember(entry: LiveDelivery, changes?: DeliveryChanges): void {
    const known = this.#entries.get(entry.deliveryId)
    if (known && known.entry.lastSeq >= entry.lastSeq) return
    this.forget(entry.deliveryId)
    if (changes) fold(entry, changes)
    const kept = { entry, weight: weight(entry) }
    if (kept.weight > this.#maxChars) return
    // Oldest first: a Map iterates in insertion order, and a remembered entry is reinserted.
    while (this.#entries.size >= this.#capacity || this.#chars + kept.weight > this.#maxChars) {
      const oldest = this.#entries.keys().next().value
      if (oldest === undefined) break
      this.forget(oldest)
    }
    this.#entries.set(entry.deliveryId, kept)
    this.#chars += kept.weight
  }

  forget(deliveryId: string): void {
    const known = this.#entries.get(deliveryId)
    if (!known) return
    this.#entries.delete(deliveryId)
    this.#chars -= known.weight
  }

  /** Entries kept, and the characters of runtime data they hold. */
  get size(): { entries: number; chars: number } {
    return { entries: this.#entries.size, chars: this.#chars }
  }
}
