/** Time source, injected so tests can move time without sleeping. */
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

/** A clock that only moves when told to; for tests of schedules and retries. */
export class ManualClock implements Clock {
  #now: number
  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    this.#now = new Date(start).getTime()
  }
  now(): Date {
    return new Date(this.#now)
  }
  advance(ms: number): void {
    this.#now += ms
  }
  set(to: Date | string): void {
    this.#now = new Date(to).getTime()
  }
}

/** ISO 8601 UTC with milliseconds: the one timestamp format stored and returned. */
export function isoNow(clock: Clock): string {
  return clock.now().toISOString()
}
