/**
 * Commits on their way to the server, for one delivery. Deltas go out one at a time and in order;
 * a delta leaves the outbox only when the server has acknowledged it (applied or duplicate), so a
 * lost response is simply sent again (the server is idempotent on `seq`). The queue is mirrored to
 * storage (localStorage in the page), so a crash or a closed tab leaves it for the next launch.
 */
import type { Delta } from '../../modules/scorm/data-model/index.ts'
import { OUTBOX_KEY_PREFIX, type OutboxStorage, type StoredOutbox } from './outbox.storage.ts'
import type { RefusedCall, SessionSummary } from './protocol.types.ts'

export {
  OUTBOX_KEY_PREFIX,
  type OutboxStorage,
  recoverStoredOutboxes,
  type StoredOutbox,
} from './outbox.storage.ts'

export type SendOutcome =
  /** 200, applied or a duplicate: the server holds every commit up to `lastSeq`. */
  | { readonly kind: 'acked'; readonly lastSeq: number; readonly session?: SessionSummary }
  /** 409 sequence_gap or sequence_jump: the server holds commits up to `lastSeq` only. */
  | { readonly kind: 'gap'; readonly lastSeq: number }
  /** Network failure, timeout, 408, 429 or 5xx: worth sending again later. */
  | { readonly kind: 'retry'; readonly reason: string; readonly afterMs?: number }
  /** Any other answer (expired token, unknown delivery…): sending again cannot help. */
  | { readonly kind: 'rejected'; readonly status: number; readonly code: string }

/** `refused`: the SetValue calls refused before this commit, reported along with it. */
export type SendFn = (delta: Delta, refused?: readonly RefusedCall[]) => Promise<SendOutcome>

/** Refused SetValue calls reported with one commit, at most. */
export const REFUSED_PER_COMMIT = 20

export type OutboxStatus =
  | { readonly state: 'idle' }
  | { readonly state: 'sending' }
  | { readonly state: 'retrying'; readonly attempt: number; readonly inMs: number }
  | { readonly state: 'blocked'; readonly status: number; readonly code: string }

export interface OutboxOptions {
  readonly sessionId: string
  readonly deliveryId: string
  readonly send: SendFn
  /** Where the queue is mirrored; default none. */
  readonly storage?: OutboxStorage | null
  /** The runtime's changesSince, to repair a sequence gap; without it the queue is merged. */
  readonly changesSince?: (seq: number) => Delta
  /** Backoff: first delay 1000 ms, doubling up to 30000 ms, with ±25 % jitter. */
  readonly retry?: { readonly baseMs?: number; readonly maxMs?: number }
  /** Deltas recovered from storage (a previous page), sent before anything new. */
  readonly recovered?: readonly Delta[]
  readonly onStatus?: (status: OutboxStatus) => void
  readonly now?: () => number
  readonly random?: () => number
}

/** Several consecutive deltas as one: later values win, the range covers them all. */
export function mergeDeltas(deltas: readonly Delta[]): Delta | undefined {
  const first = deltas[0]
  const last = deltas[deltas.length - 1]
  if (!first || !last) return undefined
  const values: Record<string, string> = {}
  for (const d of deltas) Object.assign(values, d.values)
  return { seq: last.seq, fromSeq: first.fromSeq, values, final: deltas.some((d) => d.final) }
}

export class Outbox {
  readonly #o: OutboxOptions
  #queue: Delta[]
  #acked = 0
  #running = false
  #blocked: OutboxStatus | undefined
  #attempt = 0
  #lastGap: number | undefined
  #wake: (() => void) | undefined
  #watchers: Array<() => boolean> = []
  /** Refused SetValue calls by the seq of the commit that reports them (memory only). */
  readonly #refused = new Map<number, RefusedCall[]>()
  /**
   * The runtime's commit number minus the one sent: 0 until a repair renumbers (the repair is
   * sent as last_seq + 1, and the runtime's later commits count on from there).
   */
  #offset = 0

  constructor(options: OutboxOptions) {
    this.#o = options
    this.#queue = [...(options.recovered ?? [])].sort((a, b) => a.seq - b.seq)
  }

  get deliveryId(): string {
    return this.#o.deliveryId
  }

  /** Deltas not yet acknowledged, oldest first. */
  pending(): readonly Delta[] {
    return this.#queue
  }

  /** Highest seq the server has acknowledged (0 before any). */
  acked(): number {
    return this.#acked
  }

  blocked(): boolean {
    return this.#blocked !== undefined
  }

  /** Queues one of the runtime's commits (numbered as the runtime numbers them). */
  push(runtimeDelta: Delta, refused: readonly RefusedCall[] = []): void {
    const delta = this.#offset
      ? {
          ...runtimeDelta,
          seq: runtimeDelta.seq - this.#offset,
          fromSeq: runtimeDelta.fromSeq - this.#offset,
        }
      : runtimeDelta
    if (delta.seq <= this.#acked) return
    if (refused.length > 0) this.#refused.set(delta.seq, refused.slice(0, REFUSED_PER_COMMIT))
    this.#queue = this.#queue.filter((d) => d.seq !== delta.seq)
    this.#queue.push(delta)
    this.#queue.sort((a, b) => a.seq - b.seq)
    this.#persist()
    // During a backoff wait the new delta simply joins the queue: no hammering a failing server.
    if (!this.#running) void this.#run()
  }

  /** Starts sending, or cuts a backoff wait short (e.g. when the browser comes back online). */
  flush(): void {
    if (this.#wake) this.#wake()
    else if (!this.#running) void this.#run()
  }

  /**
   * Resolves 'drained' once everything is acknowledged, 'blocked' when the server refused, or
   * 'timeout' after `timeoutMs` (default: wait as long as it takes).
   */
  whenDrained(timeoutMs?: number): Promise<'drained' | 'blocked' | 'timeout'> {
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined
      const check = () => {
        const result = this.#blocked ? 'blocked' : this.#queue.length === 0 ? 'drained' : undefined
        if (!result) return false
        if (timer) clearTimeout(timer)
        resolve(result)
        return true
      }
      if (check()) return
      this.#watchers.push(check)
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          this.#watchers = this.#watchers.filter((w) => w !== check)
          resolve('timeout')
        }, timeoutMs)
      }
    })
  }

  /** Forgets every pending delta, in memory and in storage (a recovered queue the server refused). */
  discard(): void {
    this.#queue = []
    this.#persist()
    this.#watchers = this.#watchers.filter((check) => !check())
  }

  /**
   * The unacknowledged deltas as one (for `sendBeacon` on unload, where there is no second
   * chance to answer a gap); undefined when nothing is pending.
   */
  remainder(): Delta | undefined {
    return mergeDeltas(this.#queue)
  }

  /** Refused calls reported with the commits up to `seq` still pending (a merged delta's). */
  refusedUpTo(seq: number): RefusedCall[] {
    const out: RefusedCall[] = []
    for (const d of this.#queue) if (d.seq <= seq) out.push(...(this.#refused.get(d.seq) ?? []))
    return out.slice(0, REFUSED_PER_COMMIT)
  }

  async #run(): Promise<void> {
    this.#running = true
    try {
      while (this.#queue.length > 0 && !this.#blocked) {
        const delta = this.#queue[0] as Delta
        this.#status({ state: 'sending' })
        let outcome: SendOutcome
        try {
          const refused = this.refusedUpTo(delta.seq)
          outcome = await (refused.length > 0 ? this.#o.send(delta, refused) : this.#o.send(delta))
        } catch (err) {
          outcome = { kind: 'retry', reason: err instanceof Error ? err.message : String(err) }
        }
        await this.#handle(delta, outcome)
      }
      if (!this.#blocked) this.#status({ state: 'idle' })
    } finally {
      this.#running = false
    }
  }

  async #handle(sent: Delta, outcome: SendOutcome): Promise<void> {
    switch (outcome.kind) {
      case 'acked':
        this.#attempt = 0
        this.#lastGap = undefined
        this.#ack(Math.max(outcome.lastSeq, sent.seq))
        return
      case 'gap':
        // A second gap at the same point means the repair did not help: wait like any failure.
        if (this.#lastGap === outcome.lastSeq) return this.#backoff()
        this.#lastGap = outcome.lastSeq
        this.#repairGap(outcome.lastSeq)
        return
      case 'retry':
        return this.#backoff(outcome.afterMs)
      case 'rejected':
        this.#blocked = { state: 'blocked', status: outcome.status, code: outcome.code }
        this.#status(this.#blocked)
        return
    }
  }

  #ack(seq: number): void {
    this.#acked = Math.max(this.#acked, seq)
    this.#queue = this.#queue.filter((d) => d.seq > this.#acked)
    for (const s of this.#refused.keys()) if (s <= this.#acked) this.#refused.delete(s)
    this.#persist()
  }

  /**
   * Replaces the queue with one delta that is commit `lastSeq + 1` and holds every change the
   * server lacks, so the numbers it receives never skip (a delta reaching far ahead is refused
   * as `sequence_jump`). With the live runtime the values are exact (`changesSince`, and its
   * later commits are renumbered to follow); a recovered queue has no runtime, so what is left of
   * it is merged rather than lost too.
   */
  #repairGap(lastSeq: number): void {
    const merged = mergeDeltas(this.#queue)
    if (!merged) return
    const fresh = this.#o.changesSince?.(lastSeq + this.#offset)
    const freshSeq = fresh ? fresh.seq - this.#offset : -1
    const covering =
      fresh && freshSeq >= merged.seq
        ? { values: fresh.values, seq: freshSeq, final: merged.final && freshSeq === merged.seq }
        : merged
    const shift = covering.seq - (lastSeq + 1)
    const repaired: Delta = {
      seq: lastSeq + 1,
      fromSeq: lastSeq,
      values: covering.values,
      final: covering.final,
    }
    const refused = this.refusedUpTo(Number.MAX_SAFE_INTEGER)
    const later = this.#queue
      .filter((d) => d.seq > covering.seq)
      .map((d) => ({ ...d, seq: d.seq - shift, fromSeq: d.fromSeq - shift }))
    this.#offset += shift
    this.#acked = lastSeq
    this.#queue = [repaired, ...later]
    this.#refused.clear()
    if (refused.length > 0) this.#refused.set(repaired.seq, refused)
    this.#persist()
  }

  async #backoff(afterMs?: number): Promise<void> {
    this.#attempt++
    const baseMs = this.#o.retry?.baseMs ?? 1000
    const maxMs = this.#o.retry?.maxMs ?? 30_000
    const exp = Math.min(maxMs, baseMs * 2 ** (this.#attempt - 1))
    const jittered = exp * (0.75 + (this.#o.random ?? Math.random)() * 0.5)
    const inMs = Math.round(Math.min(maxMs, Math.max(afterMs ?? 0, jittered)))
    this.#status({ state: 'retrying', attempt: this.#attempt, inMs })
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, inMs)
      function done() {
        clearTimeout(timer)
        resolve()
      }
      this.#wake = done
    })
    this.#wake = undefined
  }

  #status(status: OutboxStatus): void {
    this.#o.onStatus?.(status)
    this.#watchers = this.#watchers.filter((check) => !check())
  }

  #persist(): void {
    const storage = this.#o.storage
    if (!storage) return
    const key = OUTBOX_KEY_PREFIX + this.#o.deliveryId
    try {
      if (this.#queue.length === 0) {
        storage.removeItem(key)
        return
      }
      const entry: StoredOutbox = {
        v: 1,
        sid: this.#o.sessionId,
        did: this.#o.deliveryId,
        t: (this.#o.now ?? Date.now)(),
        deltas: this.#queue,
      }
      storage.setItem(key, JSON.stringify(entry))
    } catch {
      // Storage full or disabled (private mode, partitioned iframe): memory still holds the queue.
    }
  }
}
