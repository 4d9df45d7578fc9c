/**
 * Shapes of the declarative element tables (`elements-2004.ts`, `elements-12.ts`). A table maps a
 * dotted pattern, with `n` standing for an array index and `{target}` for a `{target=ID}` segment,
 * to what lives there: a leaf element, an array (collection) or a group of leaves with `_children`.
 */
import type { Failure } from './errors.ts'

export type ScormVersion = '1.2' | '2004'

export type Access = 'ro' | 'rw' | 'wo'

/** Answers of the navigation provider for adl.nav.request_valid.* (SCORM 2004). */
export type RequestValidity = 'true' | 'false' | 'unknown'

export interface NavigationProvider {
  /** Called synchronously on GetValue("adl.nav.request_valid.…"). */
  requestValid(
    request: 'continue' | 'previous' | 'choice' | 'jump',
    target?: string,
  ): RequestValidity
}

export interface ResolvedOptions {
  readonly suspendDataLimit12: number
  readonly suspendDataLimit2004: number
  readonly maxValueLength: number
  readonly maxCollectionItems: number
  readonly maxTotalChars: number
  readonly lenientIdentifiers: boolean
}

/** Launch facts that are not data-model values but shape the rules (adl.data permissions). */
export interface ModelEnv {
  readonly version: ScormVersion
  readonly options: ResolvedOptions
  readonly sharedData: ReadonlyArray<{ readonly readable: boolean; readonly writable: boolean }>
  readonly navigation?: NavigationProvider
}

/** What a leaf's hooks can see: the stored values around it. */
export interface ElementContext {
  readonly env: ModelEnv
  /** The concrete element, e.g. `cmi.interactions.3.correct_responses.0.pattern`. */
  readonly path: string
  /** Array indices along the path, outermost first. */
  readonly indices: readonly number[]
  /** Concrete path of the item at a collection level, e.g. `cmi.interactions.3`. */
  itemPath(level: number): string
  /** Stored value of any concrete element. */
  get(path: string): string | undefined
  /** Current `_count` of a concrete collection path. */
  count(collectionPath: string): number
  /** The `{target=…}` value of a request_valid element. */
  readonly target?: string
}

export type ValueCheck = (value: string, ctx: ElementContext) => Failure | undefined

export interface LeafSpec {
  readonly kind: 'leaf'
  readonly access: Access
  /** Type/vocabulary/range check for SetValue. */
  readonly check?: ValueCheck
  /** Value GetValue returns before one is stored; without it 2004 answers 403, 1.2 answers "". */
  readonly initial?: string
  /** Writing this leaf at index == _count creates the array item (2004: the `id`). */
  readonly creates?: boolean
  /** Must be unique among the items of its array (2004 objective ids). */
  readonly unique?: boolean
  /** Once set, may only be set again to the same value (2004 cmi.objectives.n.id). */
  readonly writeOnce?: boolean
  /** Preconditions other than the array index, e.g. "type must be set" (2004 408). */
  readonly requires?: (ctx: ElementContext) => Failure | undefined
  /** Extra write permission (adl.data.n.store) checked like read-only. */
  readonly writable?: (ctx: ElementContext) => Failure | undefined
  /** Computes GetValue's answer from the stored value; undefined means "not initialized". */
  readonly read?: (stored: string | undefined, ctx: ElementContext) => string | Failure | undefined
}

export interface CollectionSpec {
  readonly kind: 'collection'
  /** The `_children` answer. */
  readonly children: string
  /** Items are created by writing any of their leaves (1.2 arrays, 2004 comments). */
  readonly anyLeafCreates?: boolean
  /** Items come only from the LMS (adl.data). */
  readonly fixed?: boolean
  /** Largest allowed `_count` for this item's array, given the parent item (correct_responses). */
  readonly maxItems?: (ctx: ElementContext) => number | undefined
}

export interface GroupSpec {
  readonly kind: 'group'
  /** The `_children` answer; undefined when the group has none (the `cmi` root). */
  readonly children?: string
}

export type NodeSpec = LeafSpec | CollectionSpec | GroupSpec

export type ElementTable = Readonly<Record<string, NodeSpec>>

export function leaf(access: Access, rest: Omit<LeafSpec, 'kind' | 'access'> = {}): LeafSpec {
  return { kind: 'leaf', access, ...rest }
}

export function collection(children: string, rest: Omit<CollectionSpec, 'kind' | 'children'> = {}) {
  return { kind: 'collection', children, ...rest } as const satisfies CollectionSpec
}

export function group(children?: string): GroupSpec {
  return children === undefined ? { kind: 'group' } : { kind: 'group', children }
}
