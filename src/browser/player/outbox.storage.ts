/**
 * How outboxes are kept in localStorage between pages: one JSON entry per delivery, written on
 * every change and removed once the server has everything, so a closed tab or a crash leaves
 * the unsent commits for the next launch of the session.
 */
import type { Delta } from '../../modules/scorm/data-model/index.ts'

/** The part of `Storage` the outbox uses; every call may throw (quota, privacy mode). */
export interface OutboxStorage {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
}

export const OUTBOX_KEY_PREFIX = 'courseport:outbox:'

/** What is stored under `courseport:outbox:{delivery id}`. */
export interface StoredOutbox {
  readonly v: 1
  readonly sid: string
  readonly did: string
  /** Last time the entry was written (ms since epoch), to expire abandoned entries. */
  readonly t: number
  readonly deltas: readonly Delta[]
}

/** Outboxes left in storage by earlier pages of this session; older entries are dropped. */
export function recoverStoredOutboxes(
  storage: OutboxStorage & { readonly length: number; key(index: number): string | null },
  sessionId: string,
  options: { now: number; maxAgeMs?: number },
): StoredOutbox[] {
  const found: StoredOutbox[] = []
  const stale: string[] = []
  try {
    for (let i = 0; i < storage.length; i++) {
      const key = storage.key(i)
      if (!key?.startsWith(OUTBOX_KEY_PREFIX)) continue
      const entry = parseStored(storage.getItem(key))
      const maxAge = options.maxAgeMs ?? 14 * 24 * 3600_000
      if (!entry || options.now - entry.t > maxAge) stale.push(key)
      else if (entry.sid === sessionId && entry.deltas.length > 0) found.push(entry)
    }
    for (const key of stale) storage.removeItem(key)
  } catch {
    // Unreadable storage: nothing to recover.
  }
  return found
}

function parseStored(raw: string | null): StoredOutbox | undefined {
  if (!raw) return undefined
  try {
    const v: unknown = JSON.parse(raw)
    if (typeof v !== 'object' || v === null) return undefined
    const e = v as Partial<StoredOutbox>
    if (e.v !== 1 || typeof e.sid !== 'string' || typeof e.did !== 'string') return undefined
    if (typeof e.t !== 'number' || !Array.isArray(e.deltas)) return undefined
    const deltas = e.deltas.filter(isDelta)
    return { v: 1, sid: e.sid, did: e.did, t: e.t, deltas }
  } catch {
    return undefined
  }
}

function isDelta(d: unknown): d is Delta {
  if (typeof d !== 'object' || d === null) return false
  const x = d as Partial<Delta>
  return (
    Number.isSafeInteger(x.seq) &&
    Number.isSafeInteger(x.fromSeq) &&
    typeof x.final === 'boolean' &&
    typeof x.values === 'object' &&
    x.values !== null
  )
}
