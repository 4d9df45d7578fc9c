import type { Readable } from 'node:stream'
import type { SlideContent } from '../../conversions/ooxml/presentation.types.ts'
import { isWebImageType, isWebMediaType } from './course.plan.ts'
import type { ImageInput, MediaInput, SlideInput } from './course.types.ts'
import { blocksFromOoxmlSlide } from './ooxml-blocks.mapper.ts'

/** Opens a part of the .pptx, e.g. `(part) => extractPart(pptxPath, part)`. */
export type PartOpener = (partName: string) => Promise<Readable>

const fileName = (partName: string) => partName.slice(partName.lastIndexOf('/') + 1)

/**
 * One slide read by the OOXML reader as generator input (without a rendered picture: add
 * `renderedImage` when LibreOffice produced one). Pictures browsers cannot show (EMF, WMF, TIFF),
 * linked or missing pictures, shape-fill pictures and media browsers cannot play are left out;
 * the reader's warnings already tell the author about them. A picture without alt text gets ''
 * (the reader reports no warning for that; the author should add alt text in PowerPoint).
 */
export function slideInputFromOoxml(slide: SlideContent, openPart: PartOpener): SlideInput {
  const images: ImageInput[] = []
  for (const image of slide.images) {
    const part = image.partName
    if (image.usage !== 'picture' || image.missing || !part || !isWebImageType(image.contentType))
      continue
    images.push({
      fileName: fileName(part),
      altText: image.decorative ? '' : (image.altText ?? ''),
      contentType: image.contentType as string,
      open: () => openPart(part),
    })
  }
  const media: MediaInput[] = []
  for (const m of slide.media) {
    const part = m.partName
    if (!m.playable || m.missing || !part || !isWebMediaType(m.contentType)) continue
    const poster = m.posterPartName
    media.push({
      fileName: fileName(part),
      kind: m.kind,
      contentType: m.contentType as string,
      title: m.shapeName,
      open: () => openPart(part),
      poster:
        poster && /\.(png|jpe?g)$/i.test(poster)
          ? {
              contentType: /\.png$/i.test(poster) ? 'image/png' : 'image/jpeg',
              open: () => openPart(poster),
            }
          : undefined,
    })
  }
  return {
    title: slide.title ?? slide.navigationTitle,
    blocks: blocksFromOoxmlSlide(slide),
    notes: slide.notes,
    images,
    media,
  }
}
