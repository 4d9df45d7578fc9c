/**
 * A launch's data-model values kept between its commits, with what the model derives from them
 * (collection counts, characters held), so that the server's model for the next commit starts
 * from them as they are instead of reading every element again. A commit's model writes into a
 * layer over the base (`createDataModel(env, base)`); once the commit is stored, the layer is
 * folded into the base (`advance`). A commit then costs what it changes, not what the attempt
 * holds: a quiz of a few hundred interactions made every commit copy and re-check them all.
 */

/** What a model over a base wrote: values, collection counts, and the characters held after. */
export interface ModelWrites {
  readonly values: ReadonlyMap<string, string>
  readonly counts: ReadonlyMap<string, number>
  readonly size: number
}

/** Reads and writes a model's values or counts (its own map, or a layer over a base). */
export interface ModelStore<V> {
  get(key: string): V | undefined
  set(key: string, value: V): void
}

/** Where a model keeps what it holds (`createDataModel`): its own maps, or a layer. */
export interface ModelStorage {
  readonly store: ModelStore<string>
  readonly counts: ModelStore<number>
  /** Characters held when the model starts. */
  readonly size: number
  /** Everything held: a copy of own maps, or a layer's view over its base. */
  values(): Readonly<Record<string, string>>
  /** What the model holds beyond its base: everything for own maps. */
  readonly written: {
    readonly values: ReadonlyMap<string, string>
    readonly counts: ReadonlyMap<string, number>
  }
}

export class ModelBase {
  /** Null-prototype: element names are never taken for `Object.prototype`'s members. */
  readonly #values: Record<string, string>
  readonly #counts: Map<string, number>
  #size: number

  /** `values` must be canonical element names with their counts and size (from a model). */
  constructor(values: Record<string, string>, counts: Map<string, number>, size: number) {
    this.#values = Object.assign(Object.create(null) as Record<string, string>, values)
    this.#counts = counts
    this.#size = size
  }

  get(path: string): string | undefined {
    return this.#values[path]
  }

  count(collection: string): number | undefined {
    return this.#counts.get(collection)
  }

  /** Characters held: element names plus values. */
  get size(): number {
    return this.#size
  }

  /** The values (the base's own record, read-only to its users: not a copy). */
  get values(): Readonly<Record<string, string>> {
    return this.#values
  }

  /**
   * Folds a layer's writes into this base, in place. Only for writes that are stored: a model
   * still reading this base (another commit of the same launch, in flight) then sees the later
   * values, but its compare-and-set on the launch's last commit fails and it is reread.
   */
  advance(writes: ModelWrites): this {
    for (const [path, value] of writes.values) this.#values[path] = value
    for (const [collection, n] of writes.counts) this.#counts.set(collection, n)
    this.#size = writes.size
    return this
  }

  /** A layer for one model over this base: reads fall through, writes stay in the layer. */
  layer(): ModelStorage {
    const values = new Map<string, string>()
    const counts = new Map<string, number>()
    return {
      store: {
        get: (key) => values.get(key) ?? this.get(key),
        set: (key, value) => values.set(key, value),
      },
      counts: {
        get: (key) => counts.get(key) ?? this.count(key),
        set: (key, value) => counts.set(key, value),
      },
      size: this.#size,
      values: () => layeredRecord(this, values),
      written: { values, counts },
    }
  }
}

/**
 * The base's values with `written` over them, as a read-only record: element reads cost a map
 * lookup, and only enumerating it (rare: a launch's end) visits every element.
 */
export function layeredRecord(
  base: ModelBase,
  written: ReadonlyMap<string, string>,
): Readonly<Record<string, string>> {
  const read = (key: string) => written.get(key) ?? base.get(key)
  const keys = () => [...new Set([...Object.keys(base.values), ...written.keys()])]
  return new Proxy(Object.create(null) as Record<string, string>, {
    get: (_t, key) => (typeof key === 'string' ? read(key) : undefined),
    has: (_t, key) => typeof key === 'string' && read(key) !== undefined,
    ownKeys: () => keys(),
    getOwnPropertyDescriptor: (_t, key) => {
      const value = typeof key === 'string' ? read(key) : undefined
      return value === undefined
        ? undefined
        : { value, writable: false, enumerable: true, configurable: true }
    },
    set: () => false,
    deleteProperty: () => false,
  })
}
