import { type FSWatcher, watch } from 'node:fs'
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
  /** Called once per page, as soon as its picture file is complete. */
  onPicture?: (page: number, path: string) => void
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

/** One pdftocairo run: pages `first`-`last`, or only the odd or the even ones of them. */
export interface RasterTask {
  first: number
  last: number
  parity?: 'odd' | 'even'
  /** The pages it draws, in the order pdftocairo writes them. */
  pages: number[]
}

function consecutiveRuns(pages: readonly number[]): number[][] {
  const runs: number[][] = []
  for (const page of pages) {
    const run = runs.at(-1)
    if (run && page === (run.at(-1) as number) + 1) run.push(page)
    else runs.push([page])
  }
  return runs
}

/**
 * The pdftocairo runs that draw `pages` with `parallel` processes. Each run of consecutive pages
 * is cut into ⌈parallel / 2⌉ pieces, and each piece of two pages or more into its odd and its even
 * pages: two processes then draw alternate slides, so their shares cost about the same (on a
 * 2-core machine this beat both contiguous halves and four contiguous chunks: 490 against 595 and
 * 565 ms on poi_customGeo's 48 slides), each process starts once, and pictures appear in slide
 * order, so the course zip can take them as they come.
 */
export function rasterTasks(pages: readonly number[], parallel: number): RasterTask[] {
  const tasks: RasterTask[] = []
  const split = parallel > 1
  for (const run of consecutiveRuns(pages)) {
    const pieces = split ? Math.min(run.length, Math.ceil(parallel / 2)) : 1
    const size = Math.ceil(run.length / pieces)
    for (let i = 0; i < run.length; i += size) {
      const piece = run.slice(i, i + size)
      const first = piece[0] as number
      const last = piece.at(-1) as number
      if (!split || piece.length < 2) {
        tasks.push({ first, last, pages: piece })
        continue
      }
      for (const parity of ['odd', 'even'] as const) {
        const own = piece.filter((p) => (p % 2 === 1) === (parity === 'odd'))
        tasks.push({ first, last, parity, pages: own })
      }
    }
  }
  return tasks
}

const PICTURE = /^p-0*(\d+)\.jpg$/

const pageOf = (file: string | null) => Number(PICTURE.exec(file ?? '')?.[1] ?? Number.NaN)

/**
 * Tells `onDone` which pages of `task` have complete pictures in `dir`: pdftocairo writes its
 * pages one after another, closing each file before creating the next, so a new file means the
 * ones before it are finished; the process's exit finishes the rest. The watch only makes
 * pictures known sooner: without its events every page is still announced at the exit.
 */
class TaskPictures {
  readonly #files = new Map<number, string>()
  #confirmed = 0
  #watcher: FSWatcher | undefined
  readonly task: RasterTask
  readonly dir: string
  readonly onDone: (page: number, path: string) => void
  constructor(task: RasterTask, dir: string, onDone: (page: number, path: string) => void) {
    this.task = task
    this.dir = dir
    this.onDone = onDone
    try {
      this.#watcher = watch(dir, (_event, file) => this.#seen(file))
      this.#watcher.on('error', () => this.close())
    } catch {
      this.#watcher = undefined // no inotify watch left: pages are announced at the exit
    }
  }

  #seen(file: string | null) {
    const page = pageOf(file)
    const index = this.task.pages.indexOf(page)
    if (index === -1) return
    this.#files.set(page, join(this.dir, file as string))
    this.#confirm(index)
  }

  /**
   * Announces the task's pages before `upTo` (an index into its pages). A page whose file is not
   * known yet stops it (its event was missed), unless the process has exited: then it is absent.
   */
  #confirm(upTo: number, exited = false) {
    for (; this.#confirmed < upTo; this.#confirmed++) {
      const page = this.task.pages[this.#confirmed] as number
      const path = this.#files.get(page)
      if (path) this.onDone(page, path)
      else if (!exited) return
    }
  }

  /** The process exited 0: every picture it made is complete. */
  async finish() {
    this.close()
    for (const file of await readdir(this.dir)) {
      const page = pageOf(file)
      if (this.task.pages.includes(page)) this.#files.set(page, join(this.dir, file))
    }
    this.#confirm(this.task.pages.length, true)
  }

  close() {
    this.#watcher?.close()
    this.#watcher = undefined
  }
}

function pdftocairoArgs(task: RasterTask, pdf: string, dir: string, options: RasterOptions) {
  const args = ['-jpeg', '-jpegopt', `quality=${options.quality}`, '-scale-to']
  args.push(String(options.longSide), '-f', String(task.first), '-l', String(task.last))
  if (task.parity) args.push(task.parity === 'odd' ? '-o' : '-e')
  args.push(pdf, join(dir, 'p'))
  return args
}

/**
 * Turns `pages` of `pdf` into JPEG files under `outDir` (pdftocairo: faster than pdftoppm on
 * vector-heavy slides, and JPEG encodes several times faster than PNG), `options.parallel`
 * processes at once. Returns page → path; each picture is also announced (`onPicture`) as soon
 * as its file is complete.
 */
export async function rasterizePages(
  tools: RasterTools,
  pdf: string,
  pages: readonly number[],
  outDir: string,
  options: RasterOptions,
): Promise<Map<number, string>> {
  const pictures = new Map<number, string>()
  const done = (page: number, path: string) => {
    pictures.set(page, path)
    options.onPicture?.(page, path)
  }
  const tasks = rasterTasks(pages, options.parallel)
  let next = 0
  const failures: string[] = []
  const worker = async () => {
    while (next < tasks.length && failures.length === 0) {
      const i = next++
      const task = tasks[i] as RasterTask
      const dir = join(outDir, `t${i}`)
      await mkdir(dir, { recursive: true })
      const watched = new TaskPictures(task, dir, done)
      try {
        const result = await runProcessGroup(
          tools.pdftocairo,
          pdftocairoArgs(task, pdf, dir, options),
          {
            env: tools.env,
            timeoutMs: Math.max(1, options.deadline - Date.now()),
            signal: options.signal,
          },
        )
        if (result.timedOut) throw new RenderError('timeout', 'Rendering slide pictures timed out')
        if (result.aborted) throw new RenderError('aborted', 'The render was cancelled')
        if (result.code !== 0) {
          failures.push(`pages ${task.first}-${task.last}: ${result.output.trim()}`)
        } else await watched.finish()
      } finally {
        watched.close()
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(options.parallel, tasks.length) }, worker))
  if (failures.length > 0) {
    throw new RenderError('raster_failed', 'Slide pictures could not be made', failures.join('\n'))
  }
  const absent = pages.filter((p) => !pictures.has(p))
  if (absent.length > 0) {
    throw new RenderError('raster_failed', `No picture was made of page(s) ${absent.join(', ')}`)
  }
  return pictures
}
