/** Warnings the conversion pipeline adds to the reader's own (conversion.pipeline.ts). */
import { isWebImageType } from '../publish/course-generator/index.ts'
import type { ConversionWarningView } from './conversion.mapper.ts'
import type { PresentationContent, SlideContent } from './ooxml/index.ts'

const listSlides = (slides: readonly number[]) =>
  slides.length === 1 ? `slide ${slides[0]}` : `slides ${slides.join(', ')}`

/** Hidden slides are left out, as PowerPoint leaves them out of a slide show. */
export function hiddenWarning(content: PresentationContent): ConversionWarningView[] {
  const hidden = content.slides.filter((s) => s.hidden).map((s) => s.index)
  if (hidden.length === 0) return []
  const message = `Hidden ${listSlides(hidden)} ${hidden.length === 1 ? 'was' : 'were'} left out of the course, as in a slide show.`
  return [{ code: 'hidden_slides', message, slides: hidden }]
}

/** Without slide pictures, pictures a browser cannot show are simply missing: say so. */
export function unsupportedPictureWarning(
  slides: readonly SlideContent[],
): ConversionWarningView[] {
  const affected = slides
    .filter((s) =>
      s.images.some(
        (i) => i.usage === 'picture' && i.partName && !i.missing && !isWebImageType(i.contentType),
      ),
    )
    .map((s) => s.index)
  if (affected.length === 0) return []
  return [
    {
      code: 'unsupported_pictures',
      message: `Pictures on ${listSlides(affected)} are in formats browsers cannot show (EMF, WMF or TIFF) and were left out. Save them as PNG or JPEG in PowerPoint.`,
      slides: affected,
    },
  ]
}

export function textOnlyWarning(code: string, why: string): ConversionWarningView {
  return {
    code,
    message: `${why} The course shows each slide's text, pictures and media, but not its layout, shapes or charts.`,
    slides: [],
  }
}
