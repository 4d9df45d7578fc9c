import { isPlayable } from './media-types.ts'
import type { Relationship, Relationships } from './opc.parts.ts'
import type { SlideImage, SlideMedia } from './presentation.types.ts'
import type { XmlElement } from './xml.parser.ts'
import { attr, child, descendants } from './xml-tree.query.ts'

export interface PartLookup {
  /** Stored part name when the archive has it. */
  resolve(partName: string): string | undefined
  contentTypeOf(partName: string): string | null
}

export interface MediaContext {
  rels: Relationships
  parts: PartLookup
}

/** What the pictures and media records repeat from the shape's `p:cNvPr`. */
export interface ShapeInfo {
  name: string
  altText: string | null
  decorative: boolean
}

export type MediaCore = Omit<SlideMedia, 'posterPartName'>

/** A picture (or a picture fill): embedded part, SVG original, or external link (never fetched). */
export function imageOf(
  blip: XmlElement,
  usage: SlideImage['usage'],
  d: ShapeInfo,
  ctx: MediaContext,
): SlideImage | null {
  if (!attr(blip, 'r:embed') && !attr(blip, 'r:link')) return null
  const embed = internalPart(ctx, attr(blip, 'r:embed'))
  const linkRel = ctx.rels.get(attr(blip, 'r:link') ?? '')
  const linkedUrl = linkRel?.external ? linkRel.target : null
  let svgPartName: string | null = null
  for (const el of descendants(blip)) {
    if (el.name === 'asvg:svgBlip') svgPartName = internalPart(ctx, attr(el, 'r:embed')).partName
  }
  const image: SlideImage = {
    shapeName: d.name,
    altText: d.altText,
    decorative: d.decorative,
    partName: embed.partName,
    contentType: embed.partName ? ctx.parts.contentTypeOf(embed.partName) : null,
    svgPartName,
    linkedUrl,
    missing: embed.partName === null && linkedUrl === null,
    usage,
  }
  return image
}

/** Internal relationship → stored part name, or null when the id or the part is absent. */
export function internalPart(
  ctx: MediaContext,
  relId: string | undefined,
): { partName: string | null } {
  const rel = relId ? ctx.rels.get(relId) : undefined
  if (!rel || rel.external || !rel.partName) return { partName: null }
  return { partName: ctx.parts.resolve(rel.partName) ?? null }
}

/** Audio/video of a picture shape (`a:videoFile`, `a:audioFile`, `p14:media`, …), else null. */
export function mediaOf(
  nvPr: XmlElement | undefined,
  d: ShapeInfo,
  ctx: MediaContext,
): MediaCore | null {
  if (!nvPr) return null
  const video = child(nvPr, 'a:videoFile') ?? child(nvPr, 'a:quickTimeFile')
  const audio = child(nvPr, 'a:audioFile') ?? child(nvPr, 'a:wavAudioFile')
  const p14 = [...descendants(nvPr)].find((e) => e.name === 'p14:media')
  if (!video && !audio && !p14) return null
  const file = video ?? audio
  const ids = [attr(p14, 'r:embed'), attr(file, 'r:embed'), attr(file, 'r:link')]
  const rels = ids
    .map((id) => (id ? ctx.rels.get(id) : undefined))
    .filter((r): r is Relationship => !!r)
  return mediaFromRels(video ? 'video' : 'audio', d.name, rels, 'shape', ctx)
}

/** Prefers an embedded copy; otherwise reports the external target (never fetched). */
export function mediaFromRels(
  kind: SlideMedia['kind'],
  shapeName: string,
  rels: readonly Relationship[],
  usage: SlideMedia['usage'],
  ctx: Pick<MediaContext, 'parts'>,
): MediaCore {
  let partName: string | null = null
  for (const rel of rels) {
    if (!rel.external && rel.partName) partName ??= ctx.parts.resolve(rel.partName) ?? null
  }
  const ext = rels.find((r) => r.external && r.target.trim() !== '' && r.target !== 'NULL')
  const linkedUrl = partName ? null : (ext?.target ?? null)
  const contentType = partName ? ctx.parts.contentTypeOf(partName) : null
  return {
    kind,
    shapeName,
    partName,
    contentType,
    linkedUrl,
    playable: partName !== null && isPlayable(partName, contentType),
    missing: partName === null && linkedUrl === null,
    usage,
  }
}
