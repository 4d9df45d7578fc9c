/** Bounded concurrency within one process: at most `limit` holders at a time, first come first served. */
export class Semaphore {
  readonly #limit: number
  #held = 0
  readonly #waiting: Array<() => void> = []

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error('limit must be an integer >= 1')
    this.#limit = limit
  }

  /** Resolves with a release function once a slot is free; rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      let released = false
      const release = () => {
        if (released) return
        released = true
        const next = this.#waiting.shift()
        if (next) next()
        else this.#held--
      }
      if (this.#held < this.#limit) {
        this.#held++
        resolve(release)
        return
      }
      if (signal?.aborted) {
        reject(signal.reason ?? new Error('aborted'))
        return
      }
      const grant = () => {
        signal?.removeEventListener('abort', onAbort)
        resolve(release)
      }
      const onAbort = () => {
        const i = this.#waiting.indexOf(grant)
        if (i !== -1) this.#waiting.splice(i, 1)
        reject(signal?.reason ?? new Error('aborted'))
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.#waiting.push(grant)
    })
  }
}
