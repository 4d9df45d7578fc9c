import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { LMS_SCRIPT_BUILD } from '../../shared/lms-script-build.ts'

const SOURCES = fileURLToPath(new URL('../../browser/dispatch-wrapper/', import.meta.url))

export interface DispatchScripts {
  /** courseport-dispatch.js: the wrapper SCO's script, shipped in the dispatch zip. */
  wrapper: string
  /** frame.js: the dispatch frame page's script, served on the content origin. */
  frame: string
}

let cached: Promise<DispatchScripts> | null = null

/**
 * The two browser scripts of src/browser/dispatch-wrapper bundled by esbuild (IIFE, ES2017 so
 * LMS-era browsers run them, ASCII only since LMSs serve files without a charset). Built once
 * per process, on first use, from the same modules the unit tests exercise.
 */
export function dispatchScripts(): Promise<DispatchScripts> {
  cached ??= build({
    entryPoints: [
      { in: join(SOURCES, 'wrapper.ts'), out: 'wrapper' },
      { in: join(SOURCES, 'frame.ts'), out: 'frame' },
    ],
    outdir: 'out',
    ...LMS_SCRIPT_BUILD,
  }).then(
    (result) => {
      const text = (name: string) => {
        const file = result.outputFiles.find((f) => f.path.endsWith(`${name}.js`))
        if (!file) throw new Error(`esbuild produced no ${name}.js`)
        return file.text
      }
      return {
        wrapper: `/* Courseport dispatch wrapper */\n${text('wrapper')}`,
        frame: text('frame'),
      }
    },
    (err: unknown) => {
      cached = null
      throw err
    },
  )
  return cached
}

/** Writes both scripts into `outdir` (the browser build, scripts/build-browser.ts). */
export async function writeDispatchScripts(outdir: string): Promise<string[]> {
  const scripts = await dispatchScripts()
  await mkdir(outdir, { recursive: true })
  const files = [
    ['courseport-dispatch.js', scripts.wrapper],
    ['frame.js', scripts.frame],
  ] as const
  for (const [name, text] of files) await writeFile(join(outdir, name), text)
  return files.map(([name]) => join(outdir, name))
}
