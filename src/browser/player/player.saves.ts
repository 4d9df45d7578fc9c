/**
 * Every outbox the page holds — the current delivery's, earlier ones still sending, and those
 * recovered from storage — and what the top bar says about them.
 */
import { Outbox, type OutboxStatus, type OutboxStorage, recoverStoredOutboxes } from './outbox.ts'
import { blockedText } from './player.messages.ts'
import { beaconOutboxes } from './player.support.ts'
import type { RuntimeClient } from './runtime.client.ts'

/**
 * How long opening an item, a sequencer move or leaving the course waits for commits to reach
 * the server before going on (saying so when they have not).
 */
export const SAVE_WAIT_MS = 10_000

export interface SavesOptions {
  readonly sessionId: string
  readonly client: RuntimeClient
  readonly storage: (OutboxStorage & Storage) | null
  /** The top bar's save note ('' when all is well). */
  readonly onNote: (text: string, tone: 'info' | 'warning') => void
}

export class Saves {
  readonly #o: SavesOptions
  readonly #outboxes = new Map<Outbox, OutboxStatus>()
  /** The outbox of the delivery on screen: kept even when idle. */
  #current: Outbox | undefined

  constructor(options: SavesOptions) {
    this.#o = options
  }

  /** Starts tracking the current delivery's outbox. */
  track(outbox: Outbox): void {
    this.#current = outbox
    this.#outboxes.set(outbox, { state: 'idle' })
  }

  /** The delivery ended: its outbox is forgotten once it has nothing left to send. */
  release(outbox: Outbox): void {
    if (this.#current === outbox) this.#current = undefined
    if (outbox.pending().length === 0) this.#outboxes.delete(outbox)
  }

  onStatus(outbox: Outbox, status: OutboxStatus): void {
    if (status.state === 'idle' && outbox !== this.#current) this.#outboxes.delete(outbox)
    else this.#outboxes.set(outbox, status)
    const states = [...this.#outboxes.values()]
    const blocked = states.find((s) => s.state === 'blocked')
    if (blocked) {
      this.#o.onNote(blockedText(blocked.code), 'warning')
    } else if (states.some((s) => s.state === 'retrying')) {
      this.#o.onNote('Offline. Your progress is kept and will be sent.', 'warning')
    } else {
      this.#o.onNote('', 'info')
    }
  }

  /** Outboxes an earlier page of this session left in storage, sent with the new token. */
  recover(runtimeToken: string): void {
    const { storage, sessionId, client } = this.#o
    if (!storage) return
    for (const entry of recoverStoredOutboxes(storage, sessionId, { now: Date.now() })) {
      const outbox: Outbox = new Outbox({
        sessionId,
        deliveryId: entry.did,
        storage,
        recovered: entry.deltas,
        send: (delta) => client.commit(runtimeToken, entry.did, delta),
        onStatus: (status) => {
          // Refused even with a fresh token (another attempt, an ended delivery): let it go.
          if (status.state === 'blocked') outbox.discard()
          this.onStatus(outbox, status.state === 'blocked' ? { state: 'idle' } : status)
        },
      })
      this.#outboxes.set(outbox, { state: 'idle' })
      outbox.flush()
    }
  }

  flushAll(): void {
    for (const outbox of this.#outboxes.keys()) outbox.flush()
  }

  /** True when every outbox drained within `timeoutMs` (none blocked, none still waiting). */
  async drained(timeoutMs?: number): Promise<boolean> {
    const waits = [...this.#outboxes.keys()].map((outbox) => {
      outbox.flush()
      return outbox.whenDrained(timeoutMs)
    })
    return (await Promise.all(waits)).every((r) => r === 'drained')
  }

  /** What is left goes by beacon (the page is being hidden, maybe for good). */
  beacon(win: Window, runtimeToken: string): void {
    beaconOutboxes(win, this.#o.client.commitUrl, runtimeToken, this.#outboxes.keys())
  }
}
