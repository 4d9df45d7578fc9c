import { join } from 'node:path'
import { isRenderError, type RenderedSlides, type SlideRenderer } from '../../infra/office/index.ts'
import { AppError } from '../../shared/app-error.ts'
import {
  generateCourse,
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
import { hiddenWarning, textOnlyWarning, unsupportedPictureWarning } from './pipeline-warnings.ts'
import { SlidePictureFeed } from './slide-picture.feed.ts'

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
  /**
   * Milliseconds: the OOXML read, LibreOffice, the slide pictures, and the course zip after the
   * last picture (the zip is mostly written while the slides are rendered).
   */
  timings: { readMs: number; officeMs: number; rasterMs: number; generateMs: number }
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
 * `onStarted` says when LibreOffice is running. The returned promise never rejects: a failure
 * is an outcome the caller decides about.
 */
function startRender(
  input: PipelineInput,
  reading: Promise<PresentationContent>,
  signal: AbortSignal,
  feed: SlidePictureFeed,
  onStarted: () => void,
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
      onPicture: (slide, path) => feed.add(slide, path),
      onStarted,
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

/**
 * The course's slides; with `pictures`, each shows its slide picture once that is drawn (with
 * `drawn` too, only the slides it names: the others show their text alone).
 */
function courseSlides(
  sourcePath: string,
  visible: readonly SlideContent[],
  pictures: SlidePictureFeed | null,
  drawn?: ReadonlyMap<number, string>,
): SlideInput[] {
  const openPart = (part: string) => extractPart(sourcePath, part)
  return visible.map((slide) => ({
    ...slideInputFromOoxml(slide, openPart),
    title: slideTitle(slide),
    renderedImage:
      pictures && (!drawn || drawn.has(slide.index))
        ? { contentType: 'image/jpeg', open: () => pictures.open(slide.index) }
        : null,
  }))
}

/**
 * Writes the course to `zipPath` on the bet that the render succeeds: the zip is written while
 * LibreOffice runs, on the core it leaves idle, with the slide pictures last, each as soon as it
 * is drawn. When the render fails (or is unavailable) the course is written from the text
 * instead, with warnings pushed. Resolves with the pictures (null: text only) and the time the
 * zip took after the render had settled; throws what settleRendering throws, once the zip is
 * closed.
 */
async function writeCourse(
  input: PipelineInput,
  zipPath: string,
  visible: readonly SlideContent[],
  rendering: Rendering,
  feed: SlidePictureFeed,
  warnings: ConversionWarningView[],
): Promise<{ rendered: RenderedSlides | null; generateMs: number }> {
  const course = (pictures: SlidePictureFeed | null, drawn?: ReadonlyMap<number, string>) =>
    generateCourse(
      {
        title: input.title,
        scormVersion: input.scormVersion,
        identifier: input.identifier,
        slides: courseSlides(input.sourcePath, visible, pictures, drawn),
      },
      zipPath,
    )
  const early = rendering instanceof Promise ? course(feed) : null
  early?.catch(() => {}) // awaited below, once the render has settled
  let rendered: RenderedSlides | null
  try {
    rendered = await settleRendering(rendering, warnings)
  } catch (err) {
    feed.fail(err)
    await early?.catch(() => {})
    throw err
  }
  const t1 = performance.now()
  if (rendered) {
    const { pictures } = rendered
    feed.complete(pictures)
    if (visible.every((slide) => pictures.has(slide.index))) await (early as Promise<unknown>)
    else {
      // The zip written early waited for a picture that never came: written again, a slide
      // without a picture shows its text alone.
      await early?.catch(() => {})
      await course(feed, pictures)
    }
  } else {
    // The bet is lost: the course is built again from the text.
    feed.fail(new Error('The slides were not rendered'))
    await early?.catch(() => {})
    warnings.push(...unsupportedPictureWarning(visible))
    input.onProgress?.(visible.length)
    await course(null)
  }
  return { rendered, generateMs: performance.now() - t1 }
}

/**
 * .pptx → SCORM zip (DESIGN §10): (1) the OOXML reader extracts structure and text, (2) the
 * renderer (LibreOffice) draws each visible slide; the generator writes a course whose pictures
 * show the slides and whose text stays real text. When rendering is unavailable or fails, the
 * course is built from pass 1 alone and a warning says so. Throws AppError `unprocessable` for a
 * file that is not a usable presentation.
 */
export async function convertPresentation(input: PipelineInput): Promise<PipelineResult> {
  let readMs = 0
  // The read begins once LibreOffice is running: begun together, its parsing held the event
  // loop while the job's profile was copied, and LibreOffice started up to 70 ms later.
  const started = Promise.withResolvers<void>()
  const reading = started.promise.then(async () => {
    const t0 = performance.now()
    const content = await readPresentation(input.sourcePath)
    readMs = performance.now() - t0
    return content
  })
  // Rejections are handled in readVisibleContent, which awaits it; until then (while the
  // renderer starts) it must not count as unhandled.
  reading.catch(() => {})
  const availability = await input.renderer.availability()
  const stop = new AbortController()
  const feed = new SlidePictureFeed()
  const rendering: Rendering = availability.available
    ? startRender(input, reading, stop.signal, feed, started.resolve)
    : { unavailable: availability.reason }
  // Without LibreOffice, or when the render fails before starting it, the read begins now.
  if (rendering instanceof Promise) void rendering.then(() => started.resolve())
  else started.resolve()
  const content = await readVisibleContent(reading, rendering, stop)
  const visible = content.slides.filter((s) => !s.hidden)
  const warnings: ConversionWarningView[] = [...content.warnings, ...hiddenWarning(content)]
  const zipPath = join(input.workDir, 'course.zip')
  const { rendered, generateMs } = await writeCourse(
    input,
    zipPath,
    visible,
    rendering,
    feed,
    warnings,
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
      generateMs,
    },
  }
}
