/**
 * `npm run build:browser` (also run by `prepare`): bundles the in-browser player into
 * dist/player/ with esbuild. Run with the project's Node: ./node_modules/.bin/node scripts/build-browser.ts
 */
import { relative } from 'node:path'
import { buildBrowserBundle, PROJECT_ROOT } from '../src/browser/build.ts'

const started = performance.now()
const result = await buildBrowserBundle()
const ms = Math.round(performance.now() - started)
process.stdout.write(
  `player bundle → ${relative(PROJECT_ROOT, result.outdir)}/ (${result.inputs.length} sources, ${ms} ms)\n`,
)
