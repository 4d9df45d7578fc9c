import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { LMS_SCRIPT_BUILD } from '../../../shared/lms-script-build.ts'

const ENTRY = fileURLToPath(new URL('./player/player.browser.ts', import.meta.url))

let cached: Promise<string> | null = null

/**
 * player.js: the TypeScript under ./player bundled by esbuild into one classic script (IIFE,
 * ES2017 so LMS-era browsers run it, ASCII only since content is served without a charset).
 * Built once per process, on first use, from the same modules the unit tests exercise.
 */
export function playerScript(): Promise<string> {
  cached ??= build({
    entryPoints: [ENTRY],
    ...LMS_SCRIPT_BUILD,
  }).then(
    (result) => {
      const file = result.outputFiles[0]
      if (!file) throw new Error('esbuild produced no player.js')
      return `/* Courseport course player */\n${file.text}`
    },
    (err: unknown) => {
      cached = null
      throw err
    },
  )
  return cached
}
