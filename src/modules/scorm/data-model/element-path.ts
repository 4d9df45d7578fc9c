/**
 * Turns an element table into a lookup tree and resolves dotted element names against it,
 * normalising array indices (`cmi.interactions.01.id` addresses item 1, as ADL's RTE does).
 */
import type { ElementTable, LeafSpec, NodeSpec } from './element-spec.ts'
import { type Failure, fail } from './errors.ts'
import { short } from './value-types.ts'

export interface TreeNode {
  spec: NodeSpec
  readonly named: Map<string, TreeNode>
  /** The item of a collection (the `n` segment). */
  item?: TreeNode
  /** The `{target}` segment. */
  target?: TreeNode
}

export type Resolved =
  | {
      readonly kind: 'leaf'
      readonly spec: LeafSpec
      /** Canonical element name. */
      readonly path: string
      /** Array indices, outermost first. */
      readonly indices: readonly number[]
      /** Concrete collection path for each index, e.g. `cmi.interactions`, `cmi.interactions.0.objectives`. */
      readonly collections: readonly string[]
      readonly target?: string
    }
  | {
      readonly kind: 'keyword'
      readonly keyword: '_children' | '_count'
      readonly spec: NodeSpec
      readonly path: string
      readonly indices: readonly number[]
      readonly collections: readonly string[]
    }
  | { readonly kind: 'error'; readonly failure: Failure }

const newNode = (): TreeNode => ({ spec: { kind: 'group' }, named: new Map() })

export function compileTable(table: ElementTable): TreeNode {
  const root = newNode()
  for (const [pattern, spec] of Object.entries(table)) {
    let node = root
    for (const segment of pattern.split('.')) {
      if (segment === 'n') node = node.item ??= newNode()
      else if (segment === '{target}') node = node.target ??= newNode()
      else {
        let child = node.named.get(segment)
        if (!child) {
          child = newNode()
          node.named.set(segment, child)
        }
        node = child
      }
    }
    node.spec = spec
  }
  return root
}

/** Splits on dots outside `{…}`, so `{target=a.b}` stays one segment. */
export function splitElement(element: string): string[] {
  if (!element.includes('{')) return element.split('.')
  const out: string[] = []
  let start = 0
  let depth = 0
  for (let i = 0; i < element.length; i++) {
    const ch = element[i]
    if (ch === '{') depth++
    else if (ch === '}' && depth > 0) depth--
    else if (ch === '.' && depth === 0) {
      out.push(element.slice(start, i))
      start = i + 1
    }
  }
  out.push(element.slice(start))
  return out
}

const undefinedElement = (element: string) =>
  ({
    kind: 'error',
    failure: fail('undefined-element', `"${short(element)}" is not a data model element`),
  }) as const

export function resolveElement(root: TreeNode, element: string): Resolved {
  const segments = splitElement(element)
  let node = root
  const parts: string[] = []
  const indices: number[] = []
  const collections: string[] = []
  let target: string | undefined
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i] ?? ''
    const last = i === segments.length - 1
    if (seg === '_children' || seg === '_count') {
      if (!last || node === root) return undefinedElement(element)
      return keyword(seg, node.spec, parts.join('.'), indices, collections)
    }
    if (node.spec.kind === 'collection') {
      if (!/^\d{1,9}$/.test(seg) || !node.item) return undefinedElement(element)
      const index = Number.parseInt(seg, 10)
      collections.push(parts.join('.'))
      indices.push(index)
      parts.push(String(index))
      node = node.item
      continue
    }
    if (node.spec.kind === 'leaf') return undefinedElement(element)
    let child = node.named.get(seg)
    if (!child && node.target && /^\{target=[^}]*\}$/.test(seg)) {
      child = node.target
      target = seg.slice(8, -1)
    }
    if (!child) return undefinedElement(element)
    parts.push(seg)
    node = child
  }
  if (node.spec.kind !== 'leaf') return undefinedElement(element)
  const path = parts.join('.')
  return target === undefined
    ? { kind: 'leaf', spec: node.spec, path, indices, collections }
    : { kind: 'leaf', spec: node.spec, path, indices, collections, target }
}

function keyword(
  word: '_children' | '_count',
  spec: NodeSpec,
  path: string,
  indices: number[],
  collections: string[],
): Resolved {
  if (word === '_count' && spec.kind !== 'collection') {
    return { kind: 'error', failure: fail('no-count', `${path} is not an array, it has no _count`) }
  }
  const hasChildren = spec.kind === 'collection' || (spec.kind === 'group' && spec.children)
  if (word === '_children' && !hasChildren) {
    return { kind: 'error', failure: fail('no-children', `${path} has no children`) }
  }
  return { kind: 'keyword', keyword: word, spec, path, indices, collections }
}

export function childrenOf(spec: NodeSpec): string {
  return spec.kind === 'leaf' ? '' : (spec.children ?? '')
}
