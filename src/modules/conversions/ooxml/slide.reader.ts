import { isAppError } from '../../../shared/app-error.ts'
import type { WarningCollector } from './conversion-warnings.collector.ts'
import type { OoxmlPackage } from './ooxml.package.ts'
import { firstRelOfType, type Relationships } from './opc.parts.ts'
import { loadPlaceholderStyles, NO_STYLES } from './placeholder-styles.resolver.ts'
import type { Paragraph, SlideBlock, SlideContent, SlideMedia } from './presentation.types.ts'
import { mediaFromRels } from './slide-media.parser.ts'
import { parseShapeTree, type ShapeContext } from './slide-shapes.parser.ts'
import { oneLine, parseTextBody, type TextContext } from './text-body.parser.ts'
import type { XmlElement } from './xml.parser.ts'
import { attr, child, childrenNamed, descendants, elements, isOff, path } from './xml-tree.query.ts'

export interface SlideReadContext {
  pkg: OoxmlPackage
  slideNumberOf(partName: string): number | null
  /** Shared across slides so each layout and master is parsed once. */
  styleCache: Map<string, Promise<unknown>>
  warnings: WarningCollector
}

const ANIMATION_ELEMENTS = new Set([
  'p:anim',
  'p:animClr',
  'p:animEffect',
  'p:animMotion',
  'p:animRot',
  'p:animScale',
  'p:set',
])
const ANIMATION_CLASSES = new Set(['entr', 'exit', 'emph', 'path'])
const NAV_TITLE_MAX = 120

/** Reads one slide part completely. A malformed slide or .rels part refuses the whole file. */
export async function readSlide(
  partName: string,
  index: number,
  ctx: SlideReadContext,
): Promise<SlideContent> {
  const { pkg, warnings } = ctx
  const root = await pkg.xml(partName)
  const rels = await pkg.rels(partName)
  const styles = await loadPlaceholderStyles(pkg, rels, ctx.styleCache)
  const shapeCtx: ShapeContext = { rels, parts: pkg, styles, slideNumberOf: ctx.slideNumberOf }
  const shapes = parseShapeTree(path(root, 'p:cSld', 'p:spTree'), shapeCtx)
  const plainText: TextContext = { placeholder: null, styles: NO_STYLES, resolveLink: () => null }

  for (const { block, dataPart } of shapes.smartArt) {
    const data = dataPart ? await optionalXml(ctx, dataPart, index) : null
    if (data) block.paragraphs = smartArtText(data, plainText)
  }
  for (const obj of shapes.objects) {
    if (obj.kind !== 'chart' || !obj.partName) continue
    const chart = await optionalXml(ctx, obj.partName, index)
    const rich = chart ? path(child(chart, 'c:chart'), 'c:title', 'c:tx', 'c:rich') : undefined
    obj.title = oneLine(parseTextBody(rich, plainText)) || null
  }
  const media = [...shapes.media, ...soundEffects(root, shapeCtx, shapes.media)]
  const blocks = shapes.blocks.filter((b) => b.kind !== 'smartart' || b.paragraphs.length > 0)
  const titleBlock = blocks.find((b) => b.kind === 'text' && b.role === 'title')
  const title = titleBlock?.kind === 'text' ? oneLine(titleBlock.paragraphs) || null : null
  const timing = child(root, 'p:timing')
  const slide: SlideContent = {
    index,
    partName,
    hidden: isOff(attr(root, 'show')),
    title,
    navigationTitle: title ?? firstLine(blocks) ?? `Slide ${index}`,
    blocks,
    notes: await readNotes(ctx, rels, index, plainText),
    images: shapes.images,
    media,
    links: shapes.links,
    objects: shapes.objects,
    animations: timing !== undefined && hasAnimations(timing),
    transition: hasTransition(root),
  }
  noteWarnings(slide, warnings)
  return slide
}

async function optionalXml(ctx: SlideReadContext, partName: string, slide: number) {
  try {
    return await ctx.pkg.xml(partName)
  } catch (err) {
    if (!isAppError(err) || (err.details as { reason?: string })?.reason === 'too_large') throw err
    ctx.warnings.add('missing_parts', slide, partName)
    return null
  }
}

async function readNotes(
  ctx: SlideReadContext,
  rels: Relationships,
  slide: number,
  plainText: TextContext,
): Promise<string | null> {
  const rel = firstRelOfType(rels, 'notesSlide')
  if (!rel?.partName) return null
  const stored = ctx.pkg.resolve(rel.partName)
  if (!stored) {
    ctx.warnings.add('missing_parts', slide, rel.partName)
    return null
  }
  const notes = await optionalXml(ctx, stored, slide)
  const tree = path(notes ?? undefined, 'p:cSld', 'p:spTree')
  if (!tree) return null
  const bodies = [...descendants(tree)].filter(
    (sp) => sp.name === 'p:sp' && attr(path(sp, 'p:nvSpPr', 'p:nvPr', 'p:ph'), 'type') === 'body',
  )
  const text = bodies
    .flatMap((sp) => parseTextBody(child(sp, 'p:txBody'), plainText))
    .map((p) => p.text)
    .join('\n')
    .trim()
  return text === '' ? null : text
}

/** Text of the diagram's content nodes (not connectors or presentation points). */
function smartArtText(data: XmlElement, plainText: TextContext): Paragraph[] {
  const points = childrenNamed(path(data, 'dgm:ptLst'), 'dgm:pt')
  return points
    .filter((pt) => ['node', 'asst', undefined].includes(attr(pt, 'type')))
    .flatMap((pt) => parseTextBody(child(pt, 'dgm:t'), plainText))
}

/** Transition and click sounds (`p:snd`, `a:snd`) are audio the slide plays. */
function soundEffects(root: XmlElement, ctx: ShapeContext, existing: readonly SlideMedia[]) {
  const seen = new Set(existing.map((m) => m.partName))
  const out: SlideMedia[] = []
  for (const el of descendants(root)) {
    if (el.name !== 'p:snd' && el.name !== 'a:snd') continue
    const rel = ctx.rels.get(attr(el, 'r:embed') ?? '')
    if (!rel) continue
    const media = mediaFromRels('audio', attr(el, 'name') ?? '', [rel], 'sound_effect', ctx)
    if (seen.has(media.partName)) continue
    seen.add(media.partName)
    out.push({ ...media, posterPartName: null })
  }
  return out
}

/** An empty `<p:transition/>` (or one that only sets timing or a sound) shows no effect. */
function hasTransition(root: XmlElement): boolean {
  for (const el of descendants(root)) {
    if (el.name !== 'p:transition') continue
    if (elements(el).some((c) => c.name !== 'p:sndAc' && c.name !== 'p:extLst')) return true
  }
  return false
}

function hasAnimations(timing: XmlElement): boolean {
  for (const el of descendants(timing)) {
    if (ANIMATION_ELEMENTS.has(el.name)) return true
    if (el.name === 'p:cTn' && ANIMATION_CLASSES.has(attr(el, 'presetClass') ?? '')) return true
  }
  return false
}

function firstLine(blocks: readonly SlideBlock[]): string | null {
  for (const b of blocks) {
    const texts = b.kind === 'table' ? b.rows.flat() : b.paragraphs.map((p) => p.text)
    for (const t of texts) {
      const line = t
        .split('\n')
        .map((l) => l.replace(/\s+/g, ' ').trim())
        .find((l) => l !== '')
      if (line) return line.length > NAV_TITLE_MAX ? `${line.slice(0, NAV_TITLE_MAX - 1)}…` : line
    }
  }
  return null
}

function noteWarnings(slide: SlideContent, warnings: WarningCollector): void {
  const n = slide.index
  if (slide.animations) warnings.add('animations', n)
  if (slide.transition) warnings.add('transitions', n)
  for (const o of slide.objects) if (o.kind === 'ole') warnings.add('ole_objects', n, o.progId)
  for (const img of slide.images) {
    if (img.linkedUrl && !img.partName) warnings.add('linked_pictures', n, img.linkedUrl)
    else if (img.missing) warnings.add('missing_parts', n, `picture "${img.shapeName}"`)
  }
  for (const m of slide.media) {
    if (m.linkedUrl) warnings.add('linked_media', n, m.linkedUrl)
    else if (m.missing) warnings.add('missing_parts', n, `${m.kind} "${m.shapeName}"`)
    else if (!m.playable) warnings.add('unsupported_media', n, m.contentType ?? m.partName)
  }
  for (const l of slide.links) {
    if (l.target.type === 'file' || l.target.type === 'unsupported') {
      warnings.add('unsupported_links', n, l.target.type === 'file' ? 'file' : l.target.action)
    }
  }
}
