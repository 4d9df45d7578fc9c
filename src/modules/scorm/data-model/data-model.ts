/**
 * The data-model engine: GetValue/SetValue semantics over a flat map of canonical element names
 * to values, driven by a version's element table. It knows nothing about the API state machine
 * (see runtime.ts), so the server can run the very same rules when it re-validates a commit.
 */

import {
  childrenOf,
  compileTable,
  type Resolved,
  resolveElement,
  type TreeNode,
} from './element-path.ts'
import type { ElementContext, LeafSpec, ModelEnv, ScormVersion } from './element-spec.ts'
import { ELEMENTS_12 } from './elements-12.ts'
import { ELEMENTS_2004 } from './elements-2004.ts'
import { codeFor, type Failure, fail } from './errors.ts'
import { ModelBase, type ModelStorage, type ModelWrites } from './model-base.ts'

export type GetResult = { ok: true; value: string } | { ok: false; failure: Failure }
export type SetResult =
  | {
      ok: true
      /** False when the element already held this value. */
      changed: boolean
      /** Canonical element name (indices without leading zeros). */
      path: string
    }
  | { ok: false; failure: Failure }

export interface DataModel {
  readonly version: ScormVersion
  readonly env: ModelEnv
  get(element: string): GetResult
  set(element: string, value: string): SetResult
  /** The stored value of a canonical element, without rules or evaluation. */
  peek(path: string): string | undefined
  count(collectionPath: string): number
  /**
   * All stored values (canonical element name → value): a copy, or for a model over a
   * `ModelBase` a read-only view of the base with this model's writes.
   */
  values(): Readonly<Record<string, string>>
  /** Characters held: element names plus values (what `maxTotalChars` limits). */
  size(): number
  /** What this model holds beyond its base (for a model over a `ModelBase`; else everything). */
  writes(): ModelWrites
}

/** What one stored element costs against `maxTotalChars`. */
export function entrySize(element: string, value: string): number {
  return element.length + value.length
}

const TREES: Record<ScormVersion, TreeNode> = {
  '1.2': compileTable(ELEMENTS_12),
  '2004': compileTable(ELEMENTS_2004),
}

/**
 * Element names recur constantly (every commit re-reads the stored values), so resolutions are
 * remembered; a resolution is never modified by its users. Bounded: cleared when full.
 */
const RESOLVED: Record<ScormVersion, Map<string, Resolved>> = {
  '1.2': new Map(),
  '2004': new Map(),
}
const RESOLVED_CACHE_SIZE = 20_000

export function resolve(version: ScormVersion, element: string): Resolved {
  const known = RESOLVED[version]
  const cached = known.get(element)
  if (cached) return cached
  const resolved = resolveElement(TREES[version], element)
  if (known.size >= RESOLVED_CACHE_SIZE) known.clear()
  known.set(element, resolved)
  return resolved
}

// Long on purpose: one closure over the store and its counts; get/set and their helpers share them.
/**
 * Builds a model over `initial` values (trusted: they come from the LMS). Keys that are not
 * elements of the version are dropped. Over a `ModelBase` the model reads the base and keeps its
 * writes apart (`writes()`), leaving the base as it was.
 */
export function createDataModel(
  env: ModelEnv,
  initial: Record<string, string> | ModelBase = {},
): DataModel {
  const version = env.version
  const storage = initial instanceof ModelBase ? initial.layer() : ownStorage(version, initial)
  const { store, counts } = storage
  let size = storage.size

  const count = (path: string) => counts.get(path) ?? 0

  function context(r: Extract<Resolved, { kind: 'leaf' }>): ElementContext {
    return {
      env,
      path: r.path,
      indices: r.indices,
      itemPath: (level) => `${r.collections[level]}.${r.indices[level]}`,
      get: (path) => store.get(path),
      count,
      ...(r.target === undefined ? {} : { target: r.target }),
    }
  }

  function get(element: string): GetResult {
    if (element === '') return failed('get-failure', 'GetValue needs an element name')
    const r = resolve(version, element)
    if (r.kind === 'error') return { ok: false, failure: r.failure }
    if (r.kind === 'keyword') {
      // _children describes the schema and needs no item; _count needs the array to exist.
      const missing = r.keyword === '_count' ? missingParent(r) : undefined
      if (missing) return { ok: false, failure: missing }
      return {
        ok: true,
        value: r.keyword === '_count' ? String(count(r.path)) : childrenOf(r.spec),
      }
    }
    if (r.spec.access === 'wo') return failed('write-only', `${r.path} is write-only`)
    const missing = missingParent(r)
    if (missing) return { ok: false, failure: missing }
    const stored = store.get(r.path)
    const value = r.spec.read ? r.spec.read(stored, context(r)) : (stored ?? r.spec.initial)
    if (typeof value === 'object') return { ok: false, failure: value }
    if (value === undefined) {
      if (codeFor(version, 'not-initialized') === 0) return { ok: true, value: '' }
      return failed('not-initialized', `${r.path} has no value yet`)
    }
    return { ok: true, value }
  }

  /** GetValue on an item that does not exist (index >= _count). */
  function missingParent(r: {
    path: string
    indices: readonly number[]
    collections: readonly string[]
  }) {
    for (let level = 0; level < r.indices.length; level++) {
      const c = r.collections[level] ?? ''
      if ((r.indices[level] ?? 0) >= count(c)) {
        return fail(
          'get-failure',
          `${c}.${r.indices[level]} does not exist (_count is ${count(c)})`,
        )
      }
    }
    return undefined
  }

  function set(element: string, value: string): SetResult {
    if (element === '') return failed('set-failure', 'SetValue needs an element name')
    const r = resolve(version, element)
    if (r.kind === 'error') return { ok: false, failure: r.failure }
    if (r.kind === 'keyword') return failed('keyword', `${element} is a keyword and read-only`)
    const spec = r.spec
    if (spec.access === 'ro') return failed('read-only', `${r.path} is read-only`)
    const ctx = context(r)
    const creating = arrayPosition(r, spec)
    if (typeof creating === 'object') return { ok: false, failure: creating }
    const precondition = spec.writable?.(ctx) ?? spec.requires?.(ctx)
    if (precondition) return { ok: false, failure: precondition }
    if (creating) {
      const level = r.indices.length - 1
      const limit = itemLimit(r, level, ctx)
      if ((r.indices[level] ?? 0) >= limit) {
        return failed('set-failure', `${r.collections[level]} holds at most ${limit} items`)
      }
    }
    if (value.length > env.options.maxValueLength) {
      return failed('too-long', `value exceeds ${env.options.maxValueLength} characters`)
    }
    const invalid = spec.check?.(value, ctx) ?? uniqueness(r, spec, value)
    if (invalid) return { ok: false, failure: invalid }
    const previous = store.get(r.path)
    if (spec.writeOnce && previous !== undefined && previous !== value) {
      return failed('set-failure', `${r.path} is already set to another value and cannot change`)
    }
    const grown =
      size + entrySize(r.path, value) - (previous === undefined ? 0 : entrySize(r.path, previous))
    if (grown > size && grown > env.options.maxTotalChars) {
      return failed(
        'data-full',
        `the runtime data of this attempt is full (${env.options.maxTotalChars} characters)`,
      )
    }
    size = grown
    store.set(r.path, value)
    if (creating) {
      const level = r.indices.length - 1
      counts.set(r.collections[level] ?? '', (r.indices[level] ?? 0) + 1)
    }
    return { ok: true, changed: previous !== value, path: r.path }
  }

  /**
   * Checks the indices of a write: an item must exist, or be the next one and be created by this
   * leaf. Returns true when the write creates the innermost item.
   */
  function arrayPosition(
    r: Extract<Resolved, { kind: 'leaf' }>,
    spec: LeafSpec,
  ): boolean | Failure {
    for (let level = 0; level < r.indices.length; level++) {
      const c = r.collections[level] ?? ''
      const index = r.indices[level] ?? 0
      const n = count(c)
      if (index < n) continue
      const innermost = level === r.indices.length - 1
      const collectionSpec = resolve(version, `${c}._count`)
      const cs = collectionSpec.kind === 'keyword' ? collectionSpec.spec : undefined
      if (index > n || cs?.kind !== 'collection' || cs.fixed) {
        return fail('set-failure', `${c}.${index} is out of order: _count is ${n}`)
      }
      if (!innermost || !(spec.creates || cs.anyLeafCreates)) {
        return fail('dependency', `${c}.${index} does not exist; set its identifier first`)
      }
      return true
    }
    return false
  }

  function itemLimit(r: Extract<Resolved, { kind: 'leaf' }>, level: number, ctx: ElementContext) {
    const cs = resolve(version, `${r.collections[level]}._count`)
    const specific =
      cs.kind === 'keyword' && cs.spec.kind === 'collection' ? cs.spec.maxItems?.(ctx) : undefined
    return Math.min(specific ?? Number.POSITIVE_INFINITY, env.options.maxCollectionItems)
  }

  function uniqueness(r: Extract<Resolved, { kind: 'leaf' }>, spec: LeafSpec, value: string) {
    if (!spec.unique) return undefined
    const level = r.indices.length - 1
    const c = r.collections[level] ?? ''
    const own = r.indices[level] ?? 0
    const name = r.path.slice(`${c}.${own}.`.length)
    for (let i = 0; i < count(c); i++) {
      if (i !== own && store.get(`${c}.${i}.${name}`) === value) {
        return fail('set-failure', `${c}.${i}.${name} already has the value "${value}"`)
      }
    }
    return undefined
  }

  return {
    version,
    env,
    get,
    set,
    peek: (path) => store.get(path),
    count,
    values: storage.values,
    size: () => size,
    writes: () => ({ ...storage.written, size }),
  }
}

/** A model's own maps of `initial`'s elements under their canonical names. */
function ownStorage(
  version: ScormVersion,
  initial: Record<string, string>,
): ModelStorage & { store: Map<string, string>; counts: Map<string, number> } {
  const store = new Map<string, string>()
  const counts = new Map<string, number>()
  let size = 0
  for (const [key, value] of Object.entries(initial)) {
    if (typeof value !== 'string') continue
    const r = resolve(version, key)
    if (r.kind !== 'leaf') continue
    const before = store.get(r.path)
    size += entrySize(r.path, value) - (before === undefined ? 0 : entrySize(r.path, before))
    store.set(r.path, value)
    r.collections.forEach((c, level) => {
      counts.set(c, Math.max(counts.get(c) ?? 0, (r.indices[level] ?? 0) + 1))
    })
  }
  return {
    store,
    counts,
    size,
    values: () => Object.fromEntries(store),
    written: { values: store, counts },
  }
}

/**
 * A base for models over `values` (`createDataModel(env, base)`): elements that are not the
 * version's are dropped, as `createDataModel` drops them.
 */
export function modelBaseOf(version: ScormVersion, values: Record<string, string>): ModelBase {
  const { store, counts, size } = ownStorage(version, values)
  return new ModelBase(Object.fromEntries(store), counts, size)
}

function failed(kind: Failure['kind'], diagnostic: string) {
  return { ok: false as const, failure: fail(kind, diagnostic) }
}
