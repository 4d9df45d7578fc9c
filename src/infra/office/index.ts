/**
 * Slide rendering with LibreOffice (DESIGN §10): one hardened profile per job copied from a
 * warmed template, no network (`unshare -n`), a hard timeout that kills the whole process group,
 * bounded concurrency; poppler turns the PDF into one JPEG per slide.
 */
export { createSlideRenderer, type SlideRendererOptions } from './create-slide-renderer.ts'
export {
  isRenderError,
  type RenderAvailability,
  RenderError,
  type RenderErrorCode,
  type RenderedSlides,
  type RenderRequest,
  type SlidePlan,
  type SlideRenderer,
} from './slide-renderer.ts'
