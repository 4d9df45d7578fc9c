import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const SOURCES = fileURLToPath(new URL('../../browser/dashboard/', import.meta.url))

export interface DashboardBundle {
  'dashboard.js': string
  'dashboard.css': string
}

let cached: Promise<DashboardBundle> | null = null

/**
 * src/browser/dashboard (Preact + uPlot, app.tsx) bundled by esbuild (one script, one stylesheet
 * that includes uPlot's, no source maps served),
 * once per process on first use, so a fresh checkout serves the dashboard without a build step.
 */
export function dashboardBundle(): Promise<DashboardBundle> {
  cached ??= build({
    entryPoints: [
      { in: join(SOURCES, 'app.tsx'), out: 'dashboard' },
      { in: join(SOURCES, 'dashboard.css'), out: 'dashboard' },
    ],
    outdir: 'out',
    write: false,
    bundle: true,
    minify: true,
    target: 'es2022',
    format: 'iife',
    platform: 'browser',
    // Preact components (.tsx) through the automatic runtime, as tsconfig.json declares.
    jsx: 'automatic',
    jsxImportSource: 'preact',
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'silent',
  }).then(
    (result) => {
      const text = (suffix: string) => {
        const file = result.outputFiles.find((f) => f.path.endsWith(suffix))
        if (!file) throw new Error(`esbuild produced no ${suffix}`)
        return file.text
      }
      return { 'dashboard.js': text('.js'), 'dashboard.css': text('.css') }
    },
    (err: unknown) => {
      cached = null
      throw err
    },
  )
  return cached
}

/** Writes the bundle into `outdir` (the browser build, scripts/build-browser.ts). */
export async function writeDashboardBundle(outdir: string): Promise<string[]> {
  const bundle = await dashboardBundle()
  await mkdir(outdir, { recursive: true })
  const names = Object.keys(bundle) as (keyof DashboardBundle)[]
  for (const name of names) await writeFile(join(outdir, name), bundle[name])
  return names.map((name) => join(outdir, name))
}
