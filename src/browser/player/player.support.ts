/**
 * Small pieces of the player that touch browser APIs: the unload beacon, storage detection and
 * the retry wrapper for one-off calls.
 */
import type { Outbox } from './outbox.ts'
import { commitBeaconBody, RuntimeCallError } from './runtime.client.ts'

/**
 * Sends each outbox's unacknowledged commits as one beacon (text/plain JSON, token in the body,
 * since a beacon cannot set headers). When that is refused (the browser's ~64 KB quota), the
 * deltas go one by one, in order, while the quota lasts; whatever is left stays in storage.
 */
export function beaconOutboxes(
  win: Window,
  url: string,
  token: string,
  outboxes: Iterable<Outbox>,
): void {
  const send = (body: string) => {
    try {
      return win.navigator.sendBeacon(url, body)
    } catch {
      return false
    }
  }
  for (const outbox of outboxes) {
    const merged = outbox.remainder()
    if (!merged) continue
    const refused = outbox.refusedUpTo(merged.seq)
    if (send(commitBeaconBody(token, outbox.deliveryId, merged, refused))) continue
    for (const delta of outbox.pending()) {
      if (!send(commitBeaconBody(token, outbox.deliveryId, delta))) break
    }
  }
}

/** Retries network failures and 5xx: `attempts` tries, waiting 1 s, 2 s… in between. */
export async function withRetries<T>(call: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await call()
    } catch (err) {
      if (i >= attempts || !(err instanceof RuntimeCallError) || !err.retryable) throw err
      await new Promise((resolve) => setTimeout(resolve, 1000 * 2 ** (i - 1)))
    }
  }
}

/** The page's localStorage when it works; null when blocked (some third-party iframes). */
export function localStorageOf(win: Window): Storage | null {
  try {
    const storage = win.localStorage
    const probe = 'courseport:probe'
    storage.setItem(probe, '1')
    storage.removeItem(probe)
    return storage
  } catch {
    // Blocked in some third-party iframes and privacy modes: memory only, beacons still go.
    return null
  }
}
