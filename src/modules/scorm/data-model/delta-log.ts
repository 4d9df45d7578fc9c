/**
 * Numbered change sets ("deltas") the player sends to the server. Each commit carries the values
 * changed since the previous commit; `changesSince` rebuilds one delta covering several commits,
 * so a player whose earlier commits were lost can catch up in one request.
 */

export interface Delta {
  /** Commit number within the launch, starting at 1 and increasing by one per commit. */
  readonly seq: number
  /** The delta holds every change made after commit `fromSeq` (seq - 1 for an ordinary commit). */
  readonly fromSeq: number
  /** Canonical element name → current value. */
  readonly values: Readonly<Record<string, string>>
  /** True for the commit made by Terminate / LMSFinish. */
  readonly final: boolean
}

interface ValueSource {
  peek(path: string): string | undefined
}

export class DeltaLog {
  #seq = 0
  /** Element → number of the commit that carries its latest change. */
  readonly #changed = new Map<string, number>()

  touch(path: string): void {
    this.#changed.set(path, this.#seq + 1)
  }

  pending(model: ValueSource): Delta | undefined {
    const values = this.#collect(model, (s) => s === this.#seq + 1)
    if (Object.keys(values).length === 0) return undefined
    return { seq: this.#seq + 1, fromSeq: this.#seq, values, final: false }
  }

  commit(model: ValueSource, final: boolean): Delta {
    const values = this.#collect(model, (s) => s === this.#seq + 1)
    this.#seq++
    return { seq: this.#seq, fromSeq: this.#seq - 1, values, final }
  }

  /** Undoes the numbering of a commit the LMS refused; its changes stay pending. */
  rollback(delta: Delta): void {
    if (delta.seq === this.#seq) this.#seq--
  }

  since(model: ValueSource, seq: number): Delta {
    const values = this.#collect(model, (s) => s > seq)
    return { seq: this.#seq, fromSeq: Math.min(seq, this.#seq), values, final: false }
  }

  #collect(model: ValueSource, include: (seq: number) => boolean): Record<string, string> {
    const out: Record<string, string> = {}
    for (const [path, s] of this.#changed) {
      const value = model.peek(path)
      if (include(s) && value !== undefined) out[path] = value
    }
    return out
  }
}
