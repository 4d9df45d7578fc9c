import { mkdir, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { runProcessGroup } from './process-group.runner.ts'
import { RenderError } from './slide-renderer.ts'

export interface RasterTools {
  pdfinfo: string
  pdftocairo: string
  env: Record<string, string>
}

export interface RasterOptions {
  /** Pixels of the longer side of each picture. */
  longSide: number
  /** JPEG quality, 1-100. */
  quality: number
  /** pdftocairo processes at once. */
  parallel: number
  /** Absolute time (ms since epoch) by which everything must be done. */
  deadline: number
  signal?: AbortSignal
  onProgress?: (done: number) => void
}

/** Page count from `pdfinfo`; null when the file is not a readable PDF. */
export async function pdfPageCount(
  tools: RasterTools,
  pdf: string,
  deadline: number,
  signal?: AbortSignal,
): Promise<number | null> {
  const result = await runProcessGroup(tools.pdfinfo, [pdf], {
    env: tools.env,
    timeoutMs: Math.max(1, deadline - Date.now()),
    signal,
  })
  if (result.timedOut) throw new RenderError('timeout', 'Reading the rendered PDF timed out')
  if (result.aborted) throw new RenderError('aborted', 'The render was cancelled')
  const match = /^Pages:\s+(\d+)\s*$/m.exec(result.output)
  return result.code === 0 && match ? Number(match[1]) : null
}

/** Consecutive runs of page numbers, split so `parallel` workers get similar shares. */
export function pageChunks(pages: readonly number[], parallel: number): Array<[number, number]> {
  // Twice as many chunks as workers: a worker that drew easy pages takes another chunk.
  const size = Math.max(1, Math.ceil(pages.length / (parallel * 2)))
  const chunks: Array<[number, number]> = []
  let start: number | undefined
  let prev = 0
  let count = 0
  for (const page of pages) {
    if (start !== undefined && (page !== prev + 1 || count === size)) {
      chunks.push([start, prev])
      start = undefined
    }
    if (start === undefined) {
      start = page
      count = 0
    }
    prev = page
    count++
  }
  if (start !== undefined) chunks.push([start, prev])
  return chunks
}

const PICTURE = /^p-0*(\d+)\.jpg$/

async function picturesIn(dir: string): Promise<string[]> {
  return (await readdir(dir).catch(() => [] as string[])).filter((f) => PICTURE.test(f))
}

/**
 * Turns `pages` of `pdf` into JPEG files under `outDir` (pdftocairo: faster than pdftoppm on
 * vector-heavy slides, and JPEG encodes several times faster than PNG). Returns page → path.
 * Progress is read from the files appearing, since pdftocairo writes pages in order.
 * A little over a screen: the progress poll, the chunk workers and the final collection share
 * the chunk directories and the failure list, and splitting them would pass all of it around.
 */
export async function rasterizePages(
  tools: RasterTools,
  pdf: string,
  pages: readonly number[],
  outDir: string,
  options: RasterOptions,
): Promise<Map<number, string>> {
  const chunks = pageChunks(pages, options.parallel)
  const dirs = chunks.map((_, i) => join(outDir, `c${i}`))
  await Promise.all(dirs.map((d) => mkdir(d, { recursive: true })))
  let reported = -1
  const report = async () => {
    const counts = await Promise.all(dirs.map(picturesIn))
    const done = Math.min(
      pages.length,
      counts.reduce((n, files) => n + files.length, 0),
    )
    if (done !== reported) {
      reported = done
      options.onProgress?.(done)
    }
  }
  const poll = options.onProgress ? setInterval(() => void report(), 200) : undefined
  let next = 0
  const failures: string[] = []
  const worker = async () => {
    while (next < chunks.length && failures.length === 0) {
      const i = next++
      const [first, last] = chunks[i] as [number, number]
      const args = ['-jpeg', '-jpegopt', `quality=${options.quality}`]
      args.push('-scale-to', String(options.longSide), '-f', String(first), '-l', String(last))
      args.push(pdf, join(dirs[i] as string, 'p'))
      const result = await runProcessGroup(tools.pdftocairo, args, {
        env: tools.env,
        timeoutMs: Math.max(1, options.deadline - Date.now()),
        signal: options.signal,
      })
      if (result.timedOut) throw new RenderError('timeout', 'Rendering slide pictures timed out')
      if (result.aborted) throw new RenderError('aborted', 'The render was cancelled')
      if (result.code !== 0) failures.push(`pages ${first}-${last}: ${result.output.trim()}`)
    }
  }
  try {
    await Promise.all(Array.from({ length: Math.min(options.parallel, chunks.length) }, worker))
  } finally {
    clearInterval(poll)
  }
  if (failures.length > 0) {
    throw new RenderError('raster_failed', 'Slide pictures could not be made', failures.join('\n'))
  }
  const pictures = new Map<number, string>()
  for (const dir of dirs) {
    for (const file of await picturesIn(dir)) {
      pictures.set(Number(PICTURE.exec(file)?.[1]), join(dir, file))
    }
  }
  const absent = pages.filter((p) => !pictures.has(p))
  if (absent.length > 0) {
    throw new RenderError('raster_failed', `No picture was made of page(s) ${absent.join(', ')}`)
  }
  await report()
  return pictures
}
