import { AppError } from '../../../shared/app-error.ts'

export interface IngestSlotsOptions {
  /** Package ingests (validate, parse the manifest, store the files) running at once. Default 2. */
  concurrency?: number
  /** Longest an ingest waits for a slot before the request is answered 503. Default 30 000 ms. */
  maxWaitMs?: number
  /** Ingests that may wait at once; one more is answered 503 at once. Default 32. */
  maxWaiting?: number
}

/**
 * A small semaphore bounding concurrent package ingests, so parallel uploads cannot add up their
 * memory (issue 10.9: six large manifests in parallel reached 1.2 GB). Beyond `concurrency`,
 * ingests wait in arrival order; one that would wait longer than `maxWaitMs`, or find
 * `maxWaiting` already waiting, fails with 503 `service_unavailable` (the HTTP layer adds
 * `Retry-After` to every 503), since a client waiting more than half a minute is better told to
 * come back than kept on an open request.
 */
export class IngestSlots {
  readonly #concurrency: number
  readonly #maxWaitMs: number
  readonly #maxWaiting: number
  #running = 0
  readonly #waiting: Array<() => void> = []

  constructor(options: IngestSlotsOptions = {}) {
    this.#concurrency = options.concurrency ?? 2
    this.#maxWaitMs = options.maxWaitMs ?? 30_000
    this.#maxWaiting = options.maxWaiting ?? 32
  }

  /** Ingests running now (for tests and metrics). */
  get running(): number {
    return this.#running
  }

  /** Ingests waiting for a slot now. */
  get waiting(): number {
    return this.#waiting.length
  }

  /** Runs `work` in a slot, waiting for one first if all are taken. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.#acquire()
    try {
      return await work()
    } finally {
      this.#release()
    }
  }

  #acquire(): Promise<void> {
    if (this.#running < this.#concurrency) {
      this.#running += 1
      return Promise.resolve()
    }
    if (this.#waiting.length >= this.#maxWaiting) return Promise.reject(this.#busy())
    return new Promise<void>((resolve, reject) => {
      const admit = () => {
        clearTimeout(timer)
        resolve() // the slot is handed over by #release: #running is unchanged
      }
      const timer = setTimeout(() => {
        const at = this.#waiting.indexOf(admit)
        if (at !== -1) this.#waiting.splice(at, 1)
        reject(this.#busy())
      }, this.#maxWaitMs)
      this.#waiting.push(admit)
    })
  }

  #release(): void {
    const next = this.#waiting.shift()
    if (next) next()
    else this.#running -= 1
  }

  #busy(): AppError {
    return new AppError(
      'service_unavailable',
      `The service is processing as many packages as it can (${this.#concurrency} at once); try again shortly.`,
      { limit: 'ingestConcurrency', max: this.#concurrency },
    )
  }
}

/** The process's ingest slots (defaults above), shared by every upload path. */
export const ingestSlots = new IngestSlots()

/** Runs one package ingest within the process's ingest slots. */
export function withIngestSlot<T>(work: () => Promise<T>): Promise<T> {
  return ingestSlots.run(work)
}
