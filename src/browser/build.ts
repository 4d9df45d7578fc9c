/**
 * Builds the browser bundles with esbuild: `src/browser/player/main.ts` → `dist/player/player.js`
 * and `player.css` (+ source maps). The content app calls `ensureBrowserBundle()` when it starts,
 * so a fresh checkout serves a player without a separate build step.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
/** Default output directory of the player bundle. */
export const PLAYER_DIST_DIR = join(PROJECT_ROOT, 'dist', 'player')

/** Files the player plugin serves; all are written by one build. */
export const PLAYER_FILES = ['player.js', 'player.css', 'player.js.map', 'player.css.map'] as const
const META_FILE = 'build-meta.json'

export interface BrowserBuildOptions {
  /** Where player.js and player.css go. Default `dist/player` in the project. */
  readonly outdir?: string
}

export interface BrowserBuildResult {
  readonly outdir: string
  /** Source files that went into the bundle, relative to the project root. */
  readonly inputs: readonly string[]
}

/**
 * One build into a private temporary directory, then each file is renamed into place, so a
 * concurrent reader (another process starting up) never sees a half-written bundle.
 */
export async function buildBrowserBundle(
  options: BrowserBuildOptions = {},
): Promise<BrowserBuildResult> {
  const outdir = options.outdir ?? PLAYER_DIST_DIR
  const staging = `${outdir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`
  const player = join(PROJECT_ROOT, 'src/browser/player')
  try {
    const result = await build({
      absWorkingDir: PROJECT_ROOT,
      entryPoints: [
        { in: join(player, 'main.ts'), out: 'player' },
        { in: join(player, 'player.css'), out: 'player' },
      ],
      outdir: staging,
      bundle: true,
      minify: true,
      sourcemap: true,
      target: 'es2020',
      format: 'iife',
      platform: 'browser',
      charset: 'utf8',
      legalComments: 'none',
      metafile: true,
      logLevel: 'silent',
    })
    const inputs = Object.keys(result.metafile.inputs).sort()
    await mkdir(outdir, { recursive: true })
    for (const name of PLAYER_FILES) await rename(join(staging, name), join(outdir, name))
    // Written last: its presence means the files above are complete.
    await writeMeta(staging, outdir, inputs)
    return { outdir, inputs }
  } finally {
    await rm(staging, { recursive: true, force: true })
  }
}

async function writeMeta(staging: string, outdir: string, inputs: readonly string[]) {
  await writeFile(join(staging, META_FILE), `${JSON.stringify({ inputs }, null, 2)}\n`)
  await rename(join(staging, META_FILE), join(outdir, META_FILE))
}

const pending = new Map<string, Promise<void>>()

/**
 * Builds the player unless an up-to-date build is there: every file present and no source newer
 * than the bundle (a few dozen `stat` calls). When rebuilding fails but an older bundle exists
 * (e.g. a read-only install), the older bundle is kept and the error only logged.
 */
export function ensureBrowserBundle(
  options: BrowserBuildOptions & { readonly warn?: (message: string, err: unknown) => void } = {},
): Promise<void> {
  const outdir = options.outdir ?? PLAYER_DIST_DIR
  let running = pending.get(outdir)
  if (!running) {
    running = (async () => {
      const state = await bundleState(outdir)
      if (state === 'fresh') return
      try {
        await buildBrowserBundle({ outdir })
      } catch (err) {
        if (state === 'missing') throw err
        options.warn?.('could not rebuild the player bundle; serving the existing one', err)
      }
    })().finally(() => pending.delete(outdir))
    pending.set(outdir, running)
  }
  return running
}

async function bundleState(outdir: string): Promise<'fresh' | 'stale' | 'missing'> {
  let builtAt: number
  let inputs: string[]
  try {
    const stats = await Promise.all(PLAYER_FILES.map((f) => stat(join(outdir, f))))
    builtAt = Math.min(...stats.map((s) => s.mtimeMs))
    const meta: unknown = JSON.parse(await readFile(join(outdir, META_FILE), 'utf8'))
    inputs = (meta as { inputs?: unknown }).inputs as string[]
    if (!Array.isArray(inputs)) return 'missing'
  } catch {
    return 'missing'
  }
  const sourceTimes = await Promise.all(
    inputs.map((f) =>
      stat(join(PROJECT_ROOT, f)).then(
        (s) => s.mtimeMs,
        () => Number.POSITIVE_INFINITY,
      ),
    ),
  )
  return sourceTimes.every((t) => t <= builtAt) ? 'fresh' : 'stale'
}
