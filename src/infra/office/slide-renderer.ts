/**
 * Renders the slides of a presentation as pictures (DESIGN §10, pass 2). The conversion pipeline
 * depends on this interface only; `createSlideRenderer` picks LibreOffice or "unavailable".
 */

export type RenderAvailability =
  | { available: true /** e.g. "LibreOffice 7.4.7.2" */; version: string }
  | {
      available: false /** Why slides cannot be rendered here, for the job's record. */
      reason: string
    }

export interface RenderRequest {
  /** The presentation file; its extension (.pptx, .pptm, .potx, …) tells LibreOffice the format. */
  inputPath: string
  /** A private scratch directory of this job; the renderer writes only below it. */
  workDir: string
  /**
   * Which slides to draw. It may still be being worked out when the render starts (the OOXML
   * read runs while LibreOffice converts): it is awaited once the PDF exists.
   */
  plan: SlidePlan | Promise<SlidePlan>
  /**
   * Called once LibreOffice has been started: work that would slow its start down (reading the
   * presentation takes the event loop for 50-300 ms) can begin now.
   */
  onStarted?: () => void
  /** Cancels the render; the processes are killed. */
  signal?: AbortSignal
  /** Called as slide pictures appear, with how many of `slides` are done. */
  onProgress?: (done: number) => void
  /**
   * Called once per slide of `slides`, as soon as its picture file is complete (before `render`
   * resolves), so a caller can use the first pictures while the others are being drawn.
   */
  onPicture?: (slide: number, path: string) => void
}

export interface SlidePlan {
  /** Slides in the deck, hidden ones included: the rendered document must have this many pages. */
  slideCount: number
  /** 1-based slide numbers to turn into pictures (e.g. the visible ones), ascending. */
  slides: readonly number[]
}

export interface RenderedSlides {
  contentType: 'image/jpeg'
  /** Slide number → path of its picture (below `workDir`). */
  pictures: Map<number, string>
  /** Time LibreOffice took to write the PDF, and time to turn its pages into pictures. */
  timings: { officeMs: number; rasterMs: number }
}

export interface SlideRenderer {
  /** Checked once and remembered (binaries present, sandbox usable). */
  availability(): Promise<RenderAvailability>
  /** Throws RenderError; never leaves a process running. */
  render(request: RenderRequest): Promise<RenderedSlides>
}

export type RenderErrorCode =
  | 'unavailable'
  | 'timeout'
  | 'aborted'
  /** LibreOffice wrote no PDF: it could not load the file (it still exits 0). */
  | 'load_failed'
  /** The PDF does not have one page per slide, so pages cannot be matched to slides. */
  | 'page_mismatch'
  | 'raster_failed'

export class RenderError extends Error {
  readonly code: RenderErrorCode
  /** Tail of the tools' output, for logs only (never shown to API users). */
  readonly output: string
  constructor(code: RenderErrorCode, message: string, output = '') {
    super(message)
    this.name = 'RenderError'
    this.code = code
    this.output = output
  }
}

export function isRenderError(err: unknown): err is RenderError {
  return err instanceof RenderError
}
