import { resolveHyperlink } from './hyperlink.resolver.ts'
import type { Relationships } from './opc.parts.ts'
import {
  type PlaceholderRef,
  type PlaceholderStyles,
  placeholderOf,
} from './placeholder-styles.resolver.ts'
import type {
  Paragraph,
  SlideBlock,
  SlideImage,
  SlideLink,
  SlideMedia,
  SlideObject,
  TextRole,
} from './presentation.types.ts'
import {
  imageOf,
  internalPart,
  mediaOf,
  type PartLookup,
  type ShapeInfo,
} from './slide-media.parser.ts'
import { oneLine, parseTextBody, type TextContext } from './text-body.parser.ts'
import type { XmlElement } from './xml.parser.ts'
import { attr, child, childrenNamed, descendants, elements, isOn, path } from './xml-tree.query.ts'

export interface ShapeContext {
  rels: Relationships
  parts: PartLookup
  styles: PlaceholderStyles
  slideNumberOf(partName: string): number | null
}

export type SmartArtBlock = Extract<SlideBlock, { kind: 'smartart' }>

export interface SlideShapes {
  blocks: SlideBlock[]
  images: SlideImage[]
  media: SlideMedia[]
  links: SlideLink[]
  objects: SlideObject[]
  /** SmartArt blocks whose text lives in a diagram data part, filled in by the caller. */
  smartArt: { block: SmartArtBlock; dataPart: string | null }[]
}

/** Groups nest; real decks stay shallow, so deeper ones are cut off rather than recursed. */
const MAX_GROUP_DEPTH = 32

/** Walks a shape tree in document order (PowerPoint's reading order), flattening groups. */
export function parseShapeTree(spTree: XmlElement | undefined, ctx: ShapeContext): SlideShapes {
  const out: SlideShapes = {
    blocks: [],
    images: [],
    media: [],
    links: [],
    objects: [],
    smartArt: [],
  }
  if (spTree) walk(spTree, ctx, out, 0)
  return out
}

function walk(container: XmlElement, ctx: ShapeContext, out: SlideShapes, depth: number): void {
  for (const el of elements(container)) {
    if (el.name === 'p:grpSp') {
      if (depth < MAX_GROUP_DEPTH && !isOn(attr(path(el, 'p:nvGrpSpPr', 'p:cNvPr'), 'hidden'))) {
        walk(el, ctx, out, depth + 1)
      }
    } else if (el.name === 'p:sp') onShape(el, ctx, out)
    else if (el.name === 'p:pic') onPicture(el, ctx, out)
    else if (el.name === 'p:graphicFrame') onGraphicFrame(el, ctx, out)
    else if (el.name === 'p:contentPart' || el.name === 'p14:contentPart') {
      let name = ''
      for (const e of descendants(el)) if (e.name.endsWith(':cNvPr')) name ||= attr(e, 'name') ?? ''
      out.objects.push(object('ink', el, ctx, name))
    }
  }
}

interface Described extends ShapeInfo {
  hidden: boolean
  hlink: XmlElement | undefined
}

function describe(cNvPr: XmlElement | undefined): Described {
  const descr = attr(cNvPr, 'descr')?.trim()
  let decorative = false
  if (cNvPr) {
    for (const d of descendants(cNvPr))
      if (d.name === 'adec:decorative') decorative = isOn(attr(d, 'val'))
  }
  return {
    name: attr(cNvPr, 'name') ?? '',
    altText: descr ? descr : null,
    decorative,
    hidden: isOn(attr(cNvPr, 'hidden')),
    hlink: child(cNvPr, 'a:hlinkClick'),
  }
}

function textContext(ctx: ShapeContext, placeholder: PlaceholderRef | null): TextContext {
  return {
    placeholder,
    styles: ctx.styles,
    resolveLink: (hlink) => resolveHyperlink(hlink, ctx),
  }
}

function onShape(sp: XmlElement, ctx: ShapeContext, out: SlideShapes): void {
  const nv = child(sp, 'p:nvSpPr')
  const d = describe(child(nv, 'p:cNvPr'))
  if (d.hidden) return
  const ph = placeholderOf(child(nv, 'p:nvPr'))
  const paragraphs = parseTextBody(child(sp, 'p:txBody'), textContext(ctx, ph))
  if (paragraphs.length > 0) {
    out.blocks.push({
      kind: 'text',
      role: roleOf(ph),
      placeholder: ph?.type ?? null,
      shapeName: d.name,
      paragraphs,
    })
    collectRunLinks(paragraphs, d.name, out.links)
  }
  shapeLink(d, oneLine(paragraphs), ctx, out)
  const fill = path(sp, 'p:spPr', 'a:blipFill', 'a:blip')
  const image = fill ? imageOf(fill, 'fill', d, ctx) : null
  if (image) out.images.push(image)
}

function roleOf(ph: PlaceholderRef | null): TextRole {
  if (!ph) return 'text'
  switch (ph.type) {
    case 'title':
    case 'ctrTitle':
      return 'title'
    case 'subTitle':
      return 'subtitle'
    case 'body':
    case 'obj':
      return 'body'
    case 'dt':
    case 'ftr':
    case 'sldNum':
    case 'hdr':
      return 'footer'
    default:
      return 'other'
  }
}

function shapeLink(d: Described, text: string, ctx: ShapeContext, out: SlideShapes): void {
  const target = d.hlink ? resolveHyperlink(d.hlink, ctx) : null
  if (target) out.links.push({ text: text || null, shapeName: d.name, scope: 'shape', target })
}

/** Adjacent runs with the same target are one link (PowerPoint splits runs on formatting). */
function collectRunLinks(paragraphs: readonly Paragraph[], shapeName: string, links: SlideLink[]) {
  for (const p of paragraphs) {
    let last: { link: SlideLink; key: string } | null = null
    for (const run of p.runs) {
      const key = run.link ? JSON.stringify(run.link) : ''
      if (!run.link) {
        if (run.text !== '\n') last = null
        continue
      }
      if (last && last.key === key) {
        last.link.text = `${last.link.text ?? ''}${run.text}`
        continue
      }
      const link: SlideLink = { text: run.text, shapeName, scope: 'text', target: run.link }
      links.push(link)
      last = { link, key }
    }
  }
}

function onPicture(pic: XmlElement, ctx: ShapeContext, out: SlideShapes): void {
  const nv = child(pic, 'p:nvPicPr')
  const d = describe(child(nv, 'p:cNvPr'))
  if (d.hidden) return
  const blip = path(pic, 'p:blipFill', 'a:blip')
  const media = mediaOf(child(nv, 'p:nvPr'), d, ctx)
  if (media) {
    const poster = blip ? imageOf(blip, 'picture', d, ctx) : null
    out.media.push({ ...media, posterPartName: poster?.partName ?? null })
  } else if (blip) {
    const image = imageOf(blip, 'picture', d, ctx)
    if (image) out.images.push(image)
  }
  shapeLink(d, '', ctx, out)
}

function onGraphicFrame(frame: XmlElement, ctx: ShapeContext, out: SlideShapes): void {
  const d = describe(path(frame, 'p:nvGraphicFramePr', 'p:cNvPr'))
  if (d.hidden) return
  const data = path(frame, 'a:graphic', 'a:graphicData')
  if (!data) return
  const tbl = child(data, 'a:tbl')
  const chart = child(data, 'c:chart')
  const dgm = child(data, 'dgm:relIds')
  const ole = child(data, 'p:oleObj')
  if (tbl) onTable(tbl, d, ctx, out)
  else if (chart) out.objects.push(object('chart', chart, ctx, d.name, d.altText))
  else if (dgm) {
    out.objects.push(object('smartart', dgm, ctx, d.name, d.altText, 'r:dm'))
    const block: SmartArtBlock = { kind: 'smartart', shapeName: d.name, paragraphs: [] }
    out.blocks.push(block)
    out.smartArt.push({ block, dataPart: internalPart(ctx, attr(dgm, 'r:dm')).partName })
  } else if (ole) {
    const o = object('ole', ole, ctx, d.name, d.altText)
    const rel = ctx.rels.get(attr(ole, 'r:id') ?? '')
    o.progId = attr(ole, 'progId') ?? null
    o.linked = child(ole, 'p:link') !== undefined || rel?.external === true
    out.objects.push(o)
  }
  shapeLink(d, '', ctx, out)
}

function object(
  kind: SlideObject['kind'],
  el: XmlElement,
  ctx: ShapeContext,
  shapeName: string,
  altText: string | null = null,
  relAttr = 'r:id',
): SlideObject {
  const partName = internalPart(ctx, attr(el, relAttr)).partName
  return { kind, shapeName, altText, partName, progId: null, title: null, linked: false }
}

function onTable(tbl: XmlElement, d: Described, ctx: ShapeContext, out: SlideShapes): void {
  const cellCtx = textContext(ctx, null)
  const rows = childrenNamed(tbl, 'a:tr').map((tr) =>
    childrenNamed(tr, 'a:tc').map((tc) => {
      if (isOn(attr(tc, 'hMerge')) || isOn(attr(tc, 'vMerge'))) return ''
      const paragraphs = parseTextBody(child(tc, 'a:txBody'), cellCtx)
      collectRunLinks(paragraphs, d.name, out.links)
      return paragraphs.map((p) => p.text).join('\n')
    }),
  )
  if (rows.some((r) => r.some((c) => c !== ''))) {
    out.blocks.push({ kind: 'table', shapeName: d.name, rows })
  }
}
