import { mkdir, stat, writeFile } from 'node:fs/promises'
import { basename, extname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { copyProfile, ensureTemplate, WARM_UP_DOCUMENT } from './office-profile.ts'
import { pdfPageCount, type RasterTools, rasterizePages } from './pdf-rasterizer.ts'
import { collapseTileGrids } from './pdf-tile-grid.ts'
import { whenPdfWritten } from './pdf-written.ts'
import { runProcessGroup } from './process-group.runner.ts'
import { Semaphore } from './semaphore.ts'
import {
  type RenderAvailability,
  RenderError,
  type RenderedSlides,
  type RenderRequest,
  type SlidePlan,
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
 * picks the visible ones). Pictures keep their resolution, as in a bare `--convert-to pdf`:
 * resampling them to 150 dpi (ReduceImageResolution) cost LibreOffice 0.1-0.15 s on
 * oxs_typical and poi_themes (it re-encodes every JPEG it shrinks), more than pdftocairo saves
 * on the smaller pictures (bench/README.md, bench:conversion).
 */
const PDF_FILTER = {
  ExportHiddenSlides: { type: 'boolean', value: 'true' },
  ExportNotesPages: { type: 'boolean', value: 'false' },
  ExportBookmarks: { type: 'boolean', value: 'false' },
  ExportNotes: { type: 'boolean', value: 'false' },
  EmbedStandardFonts: { type: 'boolean', value: 'false' },
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

  async function run(
    args: string[],
    workDir: string,
    deadline: number,
    signal?: AbortSignal,
    onSpawned?: () => void,
  ) {
    const seconds = Math.ceil((deadline - Date.now()) / 1000) + 2
    const command = [tools.timeout, '--kill-after=2', `${seconds}s`, ...tools.sandbox]
    command.push(tools.soffice, ...args)
    await mkdir(join(workDir, 'home'), { recursive: true })
    await mkdir(join(workDir, 'tmp'), { recursive: true })
    const exited = runProcessGroup(command[0] as string, command.slice(1), {
      env: officeEnv(tools, workDir),
      cwd: workDir,
      timeoutMs: Math.max(1, deadline - Date.now()),
      signal,
    })
    onSpawned?.() // the process exists once runProcessGroup has returned
    const result = await exited
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
   * Starts LibreOffice on the request's file and resolves once its PDF is complete: when that
   * shows before the process has exited (it shuts down for another 40-180 ms), at once, else
   * at the exit (throwing RenderError timeout or aborted). `exited` settles when the process
   * group is gone, rejecting the same way.
   */
  async function startPdf(request: RenderRequest, deadline: number) {
    const profile = await copyProfile(await warmTemplate(), join(request.workDir, 'profile'))
    const outDir = join(request.workDir, 'pdf')
    await mkdir(outDir, { recursive: true })
    const pdf = join(outDir, `${basename(request.inputPath, extname(request.inputPath))}.pdf`)
    const gone = new AbortController()
    const written = whenPdfWritten(pdf, gone.signal)
    const t0 = performance.now()
    const args = [profileArg(profile), ...flags, '--convert-to', CONVERT_TO, '--outdir', outDir]
    args.push(request.inputPath)
    const exited = run(args, request.workDir, deadline, request.signal, request.onStarted)
    const settled = exited.then(
      () => false,
      () => false,
    )
    void settled.then(() => gone.abort())
    if (!(await Promise.race([written, settled]))) await exited
    return { pdf, exited, officeMs: performance.now() - t0 }
  }

  /**
   * LibreOffice → one PDF page per slide of the plan; returns the PDF, the same PDF with tiled
   * fills drawn as patterns (pdf-tile-grid.ts; the PDF itself when there were none), the awaited
   * plan, the time LibreOffice took to write the PDF (the profile copy not counted) and its
   * process's exit (see startPdf), which the caller must await.
   */
  async function convertToPdf(request: RenderRequest, deadline: number) {
    const { pdf, exited, officeMs } = await startPdf(request, deadline)
    try {
      const size = await stat(pdf).then(
        (s) => s.size,
        () => 0,
      )
      if (size === 0) {
        const { output } = await exited
        throw new RenderError('load_failed', 'LibreOffice could not open the presentation', output)
      }
      const [pages, plan, drawable] = await Promise.all([
        pdfPageCount(tools, pdf, deadline, request.signal),
        request.plan,
        // A PDF this cannot read is rasterised as it is.
        collapseTileGrids(pdf, join(request.workDir, 'pdf', 'patterned.pdf')).catch(() => pdf),
      ])
      if (pages !== plan.slideCount) {
        const { output } = await exited
        throw new RenderError(
          'page_mismatch',
          `LibreOffice rendered ${pages ?? 'no'} page(s) for ${plan.slideCount} slide(s)`,
          output,
        )
      }
      return { pdf, drawable, plan, officeMs, exited }
    } catch (err) {
      await exited.catch(() => {}) // no process outlives the render
      throw err
    }
  }

  async function render(request: RenderRequest): Promise<RenderedSlides> {
    const release = await slots.acquire(request.signal).catch(() => {
      throw new RenderError('aborted', 'The render was cancelled')
    })
    try {
      const deadline = Date.now() + options.timeoutMs
      const { pdf, drawable, plan, officeMs, exited } = await convertToPdf(request, deadline)
      try {
        return await drawPictures(request, { pdf, drawable, plan, deadline, exited, officeMs })
      } finally {
        await exited.catch(() => {}) // no process outlives the render
      }
    } finally {
      release()
    }
  }

  /** The slide pictures of a checked PDF; LibreOffice may still be shutting down meanwhile. */
  async function drawPictures(
    request: RenderRequest,
    pdfs: {
      pdf: string
      drawable: string
      plan: SlidePlan
      deadline: number
      exited: Promise<unknown>
      officeMs: number
    },
  ): Promise<RenderedSlides> {
    const { pdf, drawable, plan, deadline, exited, officeMs } = pdfs
    const t1 = performance.now()
    // A retry on LibreOffice's own PDF announces again what the first attempt had finished.
    const announced = new Set<number>()
    const rasterize = (from: string, dir: string) =>
      rasterizePages(tools, from, plan.slides, join(request.workDir, dir), {
        longSide: options.longSide ?? 1280,
        quality: options.quality ?? 85,
        parallel: options.rasterParallel ?? 2,
        deadline,
        signal: request.signal,
        onPicture: (page, path) => {
          if (announced.has(page)) return
          announced.add(page)
          request.onPicture?.(page, path)
          request.onProgress?.(announced.size)
        },
      })
    // Should poppler refuse the rewritten file, LibreOffice's own PDF is still there.
    const pictures = await rasterize(drawable, 'pictures').catch((err: unknown) => {
      if (drawable === pdf || !(err instanceof RenderError) || err.code !== 'raster_failed') {
        throw err
      }
      return rasterize(pdf, 'pictures-plain')
    })
    const rasterMs = performance.now() - t1
    await exited // its time limit and cancellation hold until it is gone
    return { contentType: 'image/jpeg', pictures, timings: { officeMs, rasterMs } }
  }

  return {
    availability: async (): Promise<RenderAvailability> => ({
      available: true,
      version: tools.version,
    }),
    render,
  }
}
