import type { OoxmlPackage } from './ooxml.package.ts'
import { firstRelOfType, relTypeIs } from './opc.parts.ts'
import type { SlideSize } from './presentation.types.ts'
import type { MainPart } from './presentation-package.opener.ts'
import { decodeXmlBytes } from './xml.parser.ts'
import { attr, childrenNamed, intAttr, isOff, path } from './xml-tree.query.ts'

export interface PresentationPart {
  /** Stored part names of the slides, in presentation order (`p:sldIdLst`), de-duplicated. */
  slideParts: string[]
  slideSize: SlideSize | null
  /** Slides listed but unreadable: why, for the `missing_parts` warning. */
  missing: string[]
  /** A VBA project is attached (macros are never run, only reported). */
  hasMacros: boolean
}

/** Slide order comes from `p:sldIdLst` → relationships, never from file names. */
export async function readPresentationPart(
  pkg: OoxmlPackage,
  main: MainPart,
): Promise<PresentationPart> {
  const root = await pkg.xml(main.partName)
  const rels = await pkg.rels(main.partName)
  const slideParts: string[] = []
  const missing: string[] = []
  const seen = new Set<string>()
  for (const sldId of childrenNamed(path(root, 'p:sldIdLst'), 'p:sldId')) {
    const relId = attr(sldId, 'r:id') ?? ''
    const rel = rels.get(relId)
    const stored = rel?.partName ? pkg.resolve(rel.partName) : undefined
    if (!rel || !relTypeIs(rel, 'slide') || !stored) {
      missing.push(
        rel ? `slide part ${rel.target} (not in the file)` : `slide reference "${relId}"`,
      )
      continue
    }
    if (seen.has(stored.toLowerCase())) continue
    seen.add(stored.toLowerCase())
    slideParts.push(stored)
  }
  // A macro-enabled content type, a vbaProject relationship, or a stray vbaProject.bin all count.
  const vbaPart = firstRelOfType(rels, 'vbaProject')?.partName
  const hasMacros =
    main.format.endsWith('m') ||
    (vbaPart ? pkg.resolve(vbaPart) !== undefined : false) ||
    pkg.zip.names().some((n) => /(^|\/)vbaProject\.bin$/i.test(n))
  return { slideParts, slideSize: readSlideSize(root), missing, hasMacros }
}

function readSlideSize(root: Parameters<typeof path>[0]): SlideSize | null {
  const sz = path(root, 'p:sldSz')
  const cx = intAttr(sz, 'cx')
  const cy = intAttr(sz, 'cy')
  if (cx === null || cy === null || cx <= 0 || cy <= 0) return null
  return { widthEmu: cx, heightEmu: cy, type: attr(sz, 'type') ?? null }
}

const HEAD_LIMIT = 64 * 1024
const ROOT_TAG = /<(?:[A-Za-z_][\w.-]*:)?sld(?=[\s/>])[^>]*>/
const SHOW_ATTR = /\sshow\s*=\s*(["'])([^"']*)\1/

/**
 * Reads only the start of a slide part to learn whether it is hidden (`<p:sld show="0">`),
 * which keeps the probe at milliseconds for large decks. Null when the head is inconclusive
 * (e.g. UTF-16), in which case the caller parses the whole part.
 */
export async function hiddenFromHead(
  pkg: OoxmlPackage,
  slidePart: string,
): Promise<boolean | null> {
  const head = await pkg.zip.readHead(
    slidePart,
    HEAD_LIMIT,
    (buf) => buf.includes(0x3e) && hasRoot(buf),
  )
  const match = ROOT_TAG.exec(decodeXmlBytes(head))
  if (!match) return null
  const show = SHOW_ATTR.exec(match[0])
  return show ? isOff(show[2]) : false
}

function hasRoot(buf: Buffer): boolean {
  return ROOT_TAG.test(buf.toString('latin1'))
}
