import type { OoxmlPackage } from './ooxml.package.ts'
import { firstRelOfType, type Relationships } from './opc.parts.ts'
import type { XmlElement } from './xml.parser.ts'
import { attr, child, elements, path } from './xml-tree.query.ts'

export interface PlaceholderRef {
  /** `p:ph/@type`, `obj` when the attribute is absent (the schema default). */
  type: string
  idx: string | null
}

interface PlaceholderStyle extends PlaceholderRef {
  lstStyle: XmlElement | undefined
}

interface MasterStyles {
  placeholders: PlaceholderStyle[]
  title: XmlElement | undefined
  body: XmlElement | undefined
  other: XmlElement | undefined
}

const EMPTY_MASTER: MasterStyles = {
  placeholders: [],
  title: undefined,
  body: undefined,
  other: undefined,
}

/** Explicit bullet setting of a paragraph-properties element, undefined when it says nothing. */
export function bulletOf(pPr: XmlElement | undefined): boolean | undefined {
  if (!pPr) return undefined
  if (child(pPr, 'a:buNone')) return false
  if (child(pPr, 'a:buChar') || child(pPr, 'a:buAutoNum') || child(pPr, 'a:buBlip')) return true
  return undefined
}

export function placeholderOf(nvPr: XmlElement | undefined): PlaceholderRef | null {
  const ph = child(nvPr, 'p:ph')
  if (!ph) return null
  return { type: attr(ph, 'type') ?? 'obj', idx: attr(ph, 'idx') ?? null }
}

/**
 * Bullet inheritance for placeholders: the slide's own text wins, then the matching layout
 * placeholder's list style, then the master placeholder's, then the master text styles.
 */
export class PlaceholderStyles {
  readonly #layout: PlaceholderStyle[]
  readonly #master: MasterStyles

  constructor(layout: PlaceholderStyle[], master: MasterStyles) {
    this.#layout = layout
    this.#master = master
  }

  bulletFor(ph: PlaceholderRef, level: number): boolean | undefined {
    const lvl = `a:lvl${level + 1}pPr`
    const onLayout =
      (ph.idx !== null ? this.#layout.find((p) => p.idx === ph.idx) : undefined) ??
      this.#layout.find((p) => p.type === ph.type)
    const kind = masterKind(onLayout?.type ?? ph.type)
    const onMaster = this.#master.placeholders.find((p) => masterKind(p.type) === kind)
    const textStyle =
      kind === 'title'
        ? this.#master.title
        : kind === 'body'
          ? this.#master.body
          : this.#master.other
    for (const lst of [onLayout?.lstStyle, onMaster?.lstStyle, textStyle]) {
      const b = bulletOf(child(lst, lvl))
      if (b !== undefined) return b
    }
    return undefined
  }
}

function masterKind(type: string): string {
  if (type === 'title' || type === 'ctrTitle') return 'title'
  if (type === 'body' || type === 'obj' || type === 'subTitle') return 'body'
  return type
}

export const NO_STYLES = new PlaceholderStyles([], EMPTY_MASTER)

type Cache = Map<string, Promise<unknown>>

/** Loads (and caches per part) the layout and master of a slide; absent or broken ones count as none. */
export async function loadPlaceholderStyles(
  pkg: OoxmlPackage,
  slideRels: Relationships,
  cache: Cache,
): Promise<PlaceholderStyles> {
  const layoutPart = resolved(pkg, firstRelOfType(slideRels, 'slideLayout')?.partName)
  if (!layoutPart) return NO_STYLES
  const layout = await cached(cache, layoutPart, async () => {
    const root = await pkg.xml(layoutPart)
    const masterRel = firstRelOfType(await pkg.rels(layoutPart), 'slideMaster')
    return { placeholders: readPlaceholders(root), masterPart: resolved(pkg, masterRel?.partName) }
  })
  if (!layout) return NO_STYLES
  const masterPart = layout.masterPart
  const master = masterPart
    ? await cached(cache, masterPart, async () => readMaster(await pkg.xml(masterPart)))
    : null
  return new PlaceholderStyles(layout.placeholders, master ?? EMPTY_MASTER)
}

function resolved(pkg: OoxmlPackage, partName: string | null | undefined): string | undefined {
  return partName ? pkg.resolve(partName) : undefined
}

async function cached<T>(cache: Cache, key: string, load: () => Promise<T>): Promise<T | null> {
  let pending = cache.get(key.toLowerCase()) as Promise<T | null> | undefined
  if (!pending) {
    pending = load().catch(() => null)
    cache.set(key.toLowerCase(), pending)
  }
  return pending
}

function readPlaceholders(root: XmlElement): PlaceholderStyle[] {
  const tree = path(root, 'p:cSld', 'p:spTree')
  if (!tree) return []
  const out: PlaceholderStyle[] = []
  for (const sp of elements(tree)) {
    if (sp.name !== 'p:sp') continue
    const ph = placeholderOf(path(sp, 'p:nvSpPr', 'p:nvPr'))
    if (ph) out.push({ ...ph, lstStyle: path(sp, 'p:txBody', 'a:lstStyle') })
  }
  return out
}

function readMaster(root: XmlElement): MasterStyles {
  const tx = child(root, 'p:txStyles')
  return {
    placeholders: readPlaceholders(root),
    title: child(tx, 'p:titleStyle'),
    body: child(tx, 'p:bodyStyle'),
    other: child(tx, 'p:otherStyle'),
  }
}
