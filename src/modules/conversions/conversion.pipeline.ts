import { createReadStream } from 'node:fs'
import { join } from 'node:path'
import { isRenderError, type RenderedSlides, type SlideRenderer } from '../../infra/office/index.ts'
import { AppError } from '../../shared/app-error.ts'
import {
  generateCourse,
  isWebImageType,
  type ScormTarget,
  type SlideInput,
  slideInputFromOoxml,
} from '../publish/course-generator/index.ts'
import type { ConversionWarningView } from './conversion.mapper.ts'
import {
  extractPart,
  type PresentationContent,
  readPresentation,
  type SlideContent,
} from './ooxml/index.ts'

export interface PipelineInput {
  /** The presentation, named with its real extension (.pptx, .potx, …). */
  sourcePath: string
  /** Private scratch directory; everything the pipeline writes goes below it. */
  workDir: string
  title: string
  scormVersion: ScormTarget
  /** Manifest identifier of the course. */
  identifier: string
  renderer: SlideRenderer
  signal?: AbortSignal
  /** Slides done so far (rendered, or read when there is no rendering). */
  onProgress?: (done: number) => void
}

export interface PipelineResult {
  zipPath: string
  slideCount: number
  hiddenSlideCount: number
  warnings: ConversionWarningView[]
  rendering: 'libreoffice' | 'text_only'
  timings: { readMs: number; officeMs: number; rasterMs: number; generateMs: number }
}

const listSlides = (slides: readonly number[]) =>
  slides.length === 1 ? `slide ${slides[0]}` : `slides ${slides.join(', ')}`

/** Hidden slides are left out, as PowerPoint leaves them out of a slide show. */
function hiddenWarning(content: PresentationContent): ConversionWarningView[] {
  const hidden = content.slides.filter((s) => s.hidden).map((s) => s.index)
  if (hidden.length === 0) return []
  const message = `Hidden ${listSlides(hidden)} ${hidden.length === 1 ? 'was' : 'were'} left out of the course, as in a slide show.`
  return [{ code: 'hidden_slides', message, slides: hidden }]
}

/** Without slide pictures, pictures a browser cannot show are simply missing: say so. */
function unsupportedPictureWarning(slides: readonly SlideContent[]): ConversionWarningView[] {
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

function textOnlyWarning(code: string, why: string): ConversionWarningView {
  return {
    code,
    message: `${why} The course shows each slide's text, pictures and media, but not its layout, shapes or charts.`,
    slides: [],
  }
}

/**
 * The slide's own title, else its first line of text; a slide with neither gets '' so the course
 * numbers it in course order ("Slide N" in the presentation counts hidden slides).
 */
function slideTitle(slide: SlideContent): string {
  if (slide.title) return slide.title
  return slide.navigationTitle === `Slide ${slide.index}` ? '' : slide.navigationTitle
}

function noVisibleSlides(content: PresentationContent): AppError {
  return new AppError(
    'unprocessable',
    content.slides.length === 0
      ? 'The presentation has no slides.'
      : 'Every slide of the presentation is hidden; show at least one slide in PowerPoint.',
    { reason: content.slides.length === 0 ? 'no_slides' : 'no_visible_slides' },
  )
}

type RenderOutcome = { rendered: RenderedSlides } | { error: unknown }
/** A render under way, or why none could start. */
type Rendering = Promise<RenderOutcome> | { unavailable: string }

/**
 * Starts LibreOffice at once, so it runs alongside the OOXML read on the core LibreOffice
 * (single-threaded) leaves idle; the renderer needs the slide plan only once the PDF exists.
 * The returned promise never rejects: a failure is an outcome the caller decides about.
 */
function startRender(
  input: PipelineInput,
  reading: Promise<PresentationContent>,
  signal: AbortSignal,
): Promise<RenderOutcome> {
  const plan = reading.then((content) => ({
    slideCount: content.slides.length,
    slides: content.slides.filter((s) => !s.hidden).map((s) => s.index),
  }))
  // The reader's own failure is reported by readVisibleContent; an aborted render never awaits
  // the plan, so its rejection must not count as unhandled.
  plan.catch(() => {})
  return input.renderer
    .render({
      inputPath: input.sourcePath,
      workDir: join(input.workDir, 'render'),
      plan,
      signal: input.signal ? AbortSignal.any([input.signal, signal]) : signal,
      onProgress: input.onProgress,
    })
    .then(
      (rendered) => ({ rendered }),
      (error: unknown) => ({ error }),
    )
}

/**
 * Awaits the OOXML read; when it fails or shows nothing, stops the render and waits until
 * LibreOffice is gone before throwing.
 */
async function readVisibleContent(
  reading: Promise<PresentationContent>,
  rendering: Rendering,
  stop: AbortController,
): Promise<PresentationContent> {
  try {
    const content = await reading
    if (!content.slides.some((s) => !s.hidden)) throw noVisibleSlides(content)
    return content
  } catch (err) {
    stop.abort()
    if (rendering instanceof Promise) await rendering
    throw err
  }
}

/**
 * The slide pictures, or null with a warning pushed when rendering is unavailable or failed.
 * An abort (or an error that is not a RenderError) is thrown.
 */
async function settleRendering(
  rendering: Rendering,
  warnings: ConversionWarningView[],
): Promise<RenderedSlides | null> {
  if ('unavailable' in rendering) {
    const reason = rendering.unavailable
    warnings.push(
      textOnlyWarning('rendering_unavailable', `Slides were not rendered as pictures: ${reason}.`),
    )
    return null
  }
  const outcome = await rendering
  if ('rendered' in outcome) return outcome.rendered
  if (!isRenderError(outcome.error) || outcome.error.code === 'aborted') throw outcome.error
  warnings.push(
    textOnlyWarning(
      'rendering_failed',
      `Slides could not be rendered as pictures (${outcome.error.message}).`,
    ),
  )
  return null
}

function courseSlides(
  sourcePath: string,
  visible: readonly SlideContent[],
  rendered: RenderedSlides | null,
): SlideInput[] {
  const openPart = (part: string) => extractPart(sourcePath, part)
  return visible.map((slide) => {
    const picture = rendered?.pictures.get(slide.index)
    return {
      ...slideInputFromOoxml(slide, openPart),
      title: slideTitle(slide),
      renderedImage: picture
        ? { contentType: 'image/jpeg', open: () => createReadStream(picture) }
        : null,
    }
  })
}

/**
 * .pptx → SCORM zip (DESIGN §10): (1) the OOXML reader extracts structure and text, (2) the
 * renderer (LibreOffice) draws each visible slide; the generator writes a course whose pictures
 * show the slides and whose text stays real text. When rendering is unavailable or fails, the
 * course is built from pass 1 alone and a warning says so. Throws AppError `unprocessable` for a
 * file that is not a usable presentation.
 */
export async function convertPresentation(input: PipelineInput): Promise<PipelineResult> {
  const t0 = performance.now()
  let readMs = 0
  const reading = readPresentation(input.sourcePath).then((content) => {
    readMs = performance.now() - t0
    return content
  })
  // Rejections are handled in readVisibleContent, which awaits it; until then (while the
  // renderer's availability is checked) it must not count as unhandled.
  reading.catch(() => {})
  const availability = await input.renderer.availability()
  const stop = new AbortController()
  const rendering: Rendering = availability.available
    ? startRender(input, reading, stop.signal)
    : { unavailable: availability.reason }
  const content = await readVisibleContent(reading, rendering, stop)
  const visible = content.slides.filter((s) => !s.hidden)
  const warnings: ConversionWarningView[] = [...content.warnings, ...hiddenWarning(content)]
  const rendered = await settleRendering(rendering, warnings)
  if (!rendered) {
    warnings.push(...unsupportedPictureWarning(visible))
    input.onProgress?.(visible.length)
  }

  const t1 = performance.now()
  const zipPath = join(input.workDir, 'course.zip')
  const slides = courseSlides(input.sourcePath, visible, rendered)
  await generateCourse(
    { title: input.title, scormVersion: input.scormVersion, identifier: input.identifier, slides },
    zipPath,
  )
  return {
    zipPath,
    slideCount: visible.length,
    hiddenSlideCount: content.slides.length - visible.length,
    warnings,
    rendering: rendered ? 'libreoffice' : 'text_only',
    timings: {
      readMs,
      officeMs: rendered?.timings.officeMs ?? 0,
      rasterMs: rendered?.timings.rasterMs ?? 0,
      generateMs: performance.now() - t1,
    },
  }
}
