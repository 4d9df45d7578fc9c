import { mkdir, stat, writeFile } from 'node:fs/promises'
import { basename, extname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { copyProfile, ensureTemplate, WARM_UP_DOCUMENT } from './office-profile.ts'
import { pdfPageCount, type RasterTools, rasterizePages } from './pdf-rasterizer.ts'
import { collapseTileGrids } from './pdf-tile-grid.ts'
import { runProcessGroup } from './process-group.runner.ts'
import { Semaphore } from './semaphore.ts'
import {
  type RenderAvailability,
  RenderError,
  type RenderedSlides,
  type RenderRequest,
  type SlideRenderer,
} from './slide-renderer.ts'

/** Resolved executables and how to wrap LibreOffice. */
export interface OfficeTools extends RasterTools {
  soffice: string
  /** Command prefix that takes the process off the network, e.g. ['/usr/bin/unshare', '-n']. */
  sandbox: string[]
  /** coreutils `timeout`: kills the group even if this process dies mid-render. */
  timeout: string
  version: string
}

export interface LibreOfficeOptions {
  /** Hard limit for one render (LibreOffice and pictures together). */
  timeoutMs: number
  /** Renders at once in this process. */
  concurrency: number
  /** Private directory for the warmed profile template. */
  cacheDir: string
  /** Longer side of slide pictures in pixels. Default 1280. */
  longSide?: number
  /** JPEG quality. Default 85. */
  quality?: number
  /** pdftocairo processes per render. Default: CPU count, at most 4. */
  rasterParallel?: number
}

/**
 * PDF export settings. Hidden slides are exported too, so page N is always slide N (the caller
 * picks the visible ones). Embedded pictures are resampled to 150 dpi: slides are rasterised
 * at about 100-130 dpi, so more detail only costs export and decode time.
 */
const PDF_FILTER = {
  ExportHiddenSlides: { type: 'boolean', value: 'true' },
  ExportNotesPages: { type: 'boolean', value: 'false' },
  ExportBookmarks: { type: 'boolean', value: 'false' },
  ExportNotes: { type: 'boolean', value: 'false' },
  EmbedStandardFonts: { type: 'boolean', value: 'false' },
  ReduceImageResolution: { type: 'boolean', value: 'true' },
  MaxImageResolution: { type: 'long', value: '150' },
  Quality: { type: 'long', value: '85' },
}
const CONVERT_TO = `pdf:impress_pdf_Export:${JSON.stringify(PDF_FILTER)}`

function officeEnv(tools: OfficeTools, workDir: string): Record<string, string> {
  // Nothing of ours (database URL, secret key, cloud credentials) reaches LibreOffice.
  return {
    ...tools.env,
    HOME: join(workDir, 'home'),
    TMPDIR: join(workDir, 'tmp'),
    SAL_USE_VCLPLUGIN: 'svp',
  }
}

/**
 * LibreOffice (`soffice --headless --convert-to pdf`) in a hardened per-job profile, without
 * network, under a hard timeout, then poppler's pdftocairo for one JPEG per slide. soffice exits
 * 0 even when it could not open the file, so success is judged by the PDF and its page count.
 * Long because it is a closure: the slot semaphore and the warm profile template are shared by
 * every render of this renderer, and its helpers below each do one step.
 */
export function createLibreOfficeRenderer(
  tools: OfficeTools,
  options: LibreOfficeOptions,
): SlideRenderer {
  const slots = new Semaphore(options.concurrency)
  let template: Promise<string> | undefined

  async function run(args: string[], workDir: string, deadline: number, signal?: AbortSignal) {
    const seconds = Math.ceil((deadline - Date.now()) / 1000) + 2
    const command = [tools.timeout, '--kill-after=2', `${seconds}s`, ...tools.sandbox]
    command.push(tools.soffice, ...args)
    await mkdir(join(workDir, 'home'), { recursive: true })
    await mkdir(join(workDir, 'tmp'), { recursive: true })
    const result = await runProcessGroup(command[0] as string, command.slice(1), {
      env: officeEnv(tools, workDir),
      cwd: workDir,
      timeoutMs: Math.max(1, deadline - Date.now()),
      signal,
    })
    if (result.timedOut) {
      throw new RenderError(
        'timeout',
        `LibreOffice did not finish within ${Math.round(options.timeoutMs / 1000)} s`,
        result.output,
      )
    }
    if (result.aborted) throw new RenderError('aborted', 'The render was cancelled', result.output)
    return result
  }

  const profileArg = (dir: string) => `-env:UserInstallation=${pathToFileURL(dir).href}`
  const flags = ['--headless', '--invisible', '--nologo', '--nodefault', '--nolockcheck']
  flags.push('--norestore')

  function warmTemplate(): Promise<string> {
    template ??= ensureTemplate(options.cacheDir, tools.version, async (profile, scratch) => {
      const doc = join(scratch, 'warm-up.fodp')
      await mkdir(scratch, { recursive: true })
      await writeFile(doc, WARM_UP_DOCUMENT)
      const deadline = Date.now() + options.timeoutMs
      await run(
        [profileArg(profile), ...flags, '--convert-to', 'pdf', '--outdir', scratch, doc],
        scratch,
        deadline,
      )
      await stat(join(scratch, 'warm-up.pdf')).catch(() => {
        throw new RenderError('load_failed', 'LibreOffice could not render its warm-up document')
      })
    }).catch((err: unknown) => {
      template = undefined // try again for the next job
      throw err
    })
    return template
  }

  /**
   * LibreOffice → one PDF page per slide of the plan; returns the PDF, the same PDF with tiled
   * fills drawn as patterns (pdf-tile-grid.ts; the PDF itself when there were none), the awaited
   * plan and the time LibreOffice took (the profile copy not counted).
   */
  async function convertToPdf(request: RenderRequest, deadline: number) {
    const profile = await copyProfile(await warmTemplate(), join(request.workDir, 'profile'))
    const outDir = join(request.workDir, 'pdf')
    const t0 = performance.now()
    const result = await run(
      [
        profileArg(profile),
        ...flags,
        '--convert-to',
        CONVERT_TO,
        '--outdir',
        outDir,
        request.inputPath,
      ],
      request.workDir,
      deadline,
      request.signal,
    )
    const pdf = join(outDir, `${basename(request.inputPath, extname(request.inputPath))}.pdf`)
    const size = await stat(pdf).then(
      (s) => s.size,
      () => 0,
    )
    if (size === 0) {
      throw new RenderError(
        'load_failed',
        'LibreOffice could not open the presentation',
        result.output,
      )
    }
    const [pages, plan, drawable] = await Promise.all([
      pdfPageCount(tools, pdf, deadline, request.signal),
      request.plan,
      // A PDF this cannot read is rasterised as it is.
      collapseTileGrids(pdf, join(request.workDir, 'pdf', 'patterned.pdf')).catch(() => pdf),
    ])
    if (pages !== plan.slideCount) {
      throw new RenderError(
        'page_mismatch',
        `LibreOffice rendered ${pages ?? 'no'} page(s) for ${plan.slideCount} slide(s)`,
        result.output,
      )
    }
    return { pdf, drawable, plan, officeMs: performance.now() - t0 }
  }

  async function render(request: RenderRequest): Promise<RenderedSlides> {
    const release = await slots.acquire(request.signal).catch(() => {
      throw new RenderError('aborted', 'The render was cancelled')
    })
    try {
      const deadline = Date.now() + options.timeoutMs
      const { pdf, drawable, plan, officeMs } = await convertToPdf(request, deadline)
      const t1 = performance.now()
      const rasterize = (from: string, dir: string) =>
        rasterizePages(tools, from, plan.slides, join(request.workDir, dir), {
          longSide: options.longSide ?? 1280,
          quality: options.quality ?? 85,
          parallel: options.rasterParallel ?? 2,
          deadline,
          signal: request.signal,
          onProgress: request.onProgress,
        })
      // Should poppler refuse the rewritten file, LibreOffice's own PDF is still there.
      const pictures = await rasterize(drawable, 'pictures').catch((err: unknown) => {
        if (drawable === pdf || !(err instanceof RenderError) || err.code !== 'raster_failed') {
          throw err
        }
        return rasterize(pdf, 'pictures-plain')
      })
      return {
        contentType: 'image/jpeg',
        pictures,
        timings: { officeMs, rasterMs: performance.now() - t1 },
      }
    } finally {
      release()
    }
  }

  return {
    availability: async (): Promise<RenderAvailability> => ({
      available: true,
      version: tools.version,
    }),
    render,
  }
}
