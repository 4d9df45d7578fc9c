import type { XmlElement } from './xml.parser.ts'
import { attr, childrenNamed } from './xml-tree.query.ts'
import { partKey } from './zip-archive.reader.ts'

/** One `Relationship` of a .rels part, with internal targets resolved to a part name. */
export interface Relationship {
  readonly id: string
  readonly type: string
  readonly target: string
  readonly external: boolean
  /** Resolved part name (no leading slash) for internal targets; null for external/invalid. */
  readonly partName: string | null
}

export type Relationships = ReadonlyMap<string, Relationship>

export const NO_RELATIONSHIPS: Relationships = new Map()

/** `ppt/slides/slide1.xml` → `ppt/slides/_rels/slide1.xml.rels`; `''` (the package) → `_rels/.rels`. */
export function relsPartFor(partName: string): string {
  const slash = partName.lastIndexOf('/')
  const dir = slash === -1 ? '' : partName.slice(0, slash + 1)
  return `${dir}_rels/${partName.slice(slash + 1)}.rels`
}

/**
 * Resolves a relationship target against its source part (RFC 3986 relative reference, as OPC
 * requires) and percent-decodes it. Returns null when it climbs above the package root.
 */
export function resolvePartName(sourcePart: string, target: string): string | null {
  const clean = target.split('#')[0]?.split('?')[0] ?? ''
  if (clean === '') return null
  const segments = clean.startsWith('/') ? [] : sourcePart.split('/').slice(0, -1)
  for (const raw of clean.split('/')) {
    if (raw === '' || raw === '.') continue
    if (raw === '..') {
      if (segments.length === 0) return null
      segments.pop()
      continue
    }
    segments.push(safeDecode(raw))
  }
  return segments.length > 0 ? segments.join('/') : null
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

export function parseRelationships(
  root: XmlElement,
  sourcePart: string,
): Map<string, Relationship> {
  const out = new Map<string, Relationship>()
  for (const el of childrenNamed(root, 'rel:Relationship')) {
    const id = attr(el, 'Id')
    const type = attr(el, 'Type') ?? ''
    const target = attr(el, 'Target') ?? ''
    // An empty Id cannot be referenced; a duplicate keeps the first, as PowerPoint does.
    if (!id || out.has(id)) continue
    const external = (attr(el, 'TargetMode') ?? '').toLowerCase() === 'external'
    const partName = external ? null : resolvePartName(sourcePart, target)
    out.set(id, { id, type, target, external, partName })
  }
  return out
}

/**
 * Compares the last segment of a relationship type, which is the same in Transitional
 * (`http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide`), Strict
 * (`http://purl.oclc.org/ooxml/officeDocument/relationships/slide`) and Microsoft extensions.
 */
export function relTypeIs(rel: Relationship | undefined, kind: string): boolean {
  if (!rel) return false
  const slash = rel.type.lastIndexOf('/')
  return rel.type.slice(slash + 1).toLowerCase() === kind.toLowerCase()
}

export function firstRelOfType(rels: Relationships, kind: string): Relationship | undefined {
  for (const rel of rels.values()) if (relTypeIs(rel, kind)) return rel
  return undefined
}

/** `[Content_Types].xml`: Override by part name, else Default by extension. */
export class ContentTypes {
  readonly #defaults = new Map<string, string>()
  readonly #overrides = new Map<string, string>()

  constructor(root: XmlElement) {
    for (const el of childrenNamed(root, 'ct:Default')) {
      const ext = attr(el, 'Extension')
      const type = attr(el, 'ContentType')
      if (ext && type) this.#defaults.set(ext.toLowerCase(), type)
    }
    for (const el of childrenNamed(root, 'ct:Override')) {
      const part = attr(el, 'PartName')
      const type = attr(el, 'ContentType')
      if (part && type) this.#overrides.set(partKey(part), type)
    }
  }

  of(partName: string): string | null {
    const override = this.#overrides.get(partKey(partName))
    if (override) return override
    const dot = partName.lastIndexOf('.')
    if (dot === -1 || dot < partName.lastIndexOf('/')) return null
    return this.#defaults.get(partName.slice(dot + 1).toLowerCase()) ?? null
  }

  /** Part names whose Override matches `predicate` (used when `_rels/.rels` is absent). */
  overridesWhere(predicate: (contentType: string) => boolean): string[] {
    return [...this.#overrides].filter(([, t]) => predicate(t)).map(([p]) => p)
  }
}
