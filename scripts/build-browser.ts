/**
 * `npm run build:browser` (also run by `prepare`): bundles the in-browser player into
 * dist/player/ with esbuild. Run with the project's Node: ./node_modules/.bin/node scripts/build-browser.ts
 */
import { relative } from 'node:path'
import { buildBrowserBundle, PROJECT_ROOT } from '../src/browser/build.ts'
import { writeDashboardBundle } from '../src/http/customer/dashboard-bundle.ts'
import { writeDispatchScripts } from '../src/modules/dispatches/dispatch-scripts.bundler.ts'

const started = performance.now()
const result = await buildBrowserBundle()
const ms = Math.round(performance.now() - started)
process.stdout.write(
  `player bundle → ${relative(PROJECT_ROOT, result.outdir)}/ (${result.inputs.length} sources, ${ms} ms)\n`,
)
// Dispatch wrapper + frame scripts (the server also bundles them in memory on first use).
const dispatch = await writeDispatchScripts(`${PROJECT_ROOT}/dist/dispatch-wrapper`)
process.stdout.write(
  `dispatch scripts → ${dispatch.map((f) => relative(PROJECT_ROOT, f)).join(', ')}\n`,
)
// The dashboard (the server also bundles it in memory on first use).
const dashboard = await writeDashboardBundle(`${PROJECT_ROOT}/dist/dashboard`)
process.stdout.write(`dashboard → ${dashboard.map((f) => relative(PROJECT_ROOT, f)).join(', ')}\n`)
