import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { test } from 'node:test'
import { dashboardBundle } from '../../../src/http/customer/dashboard-bundle.ts'

/*
 * The dashboard takes the API's response types from the TypeBox schemas under src/http (one
 * source), but only as `import type`: esbuild erases those, so neither TypeBox nor server code
 * ends up in the browser bundle.
 */

const root = join(import.meta.dirname, '../../..')
const dashboard = join(root, 'src/browser/dashboard')

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return /\.tsx?$/.test(entry.name) ? [path] : []
  })
}

test('the dashboard imports code from outside src/browser only as types', () => {
  const offending: string[] = []
  for (const file of sources(dashboard)) {
    const text = readFileSync(file, 'utf8')
    // `import type { A, B } from '…'` (braces may span lines) or `import x from '…'`.
    for (const m of text.matchAll(
      /^import\s+(type\s+)?(?:\{[^}]*\}|[^'{}\n]*?)\s*from\s+'(\.[^']+)'/gm,
    )) {
      const target = resolve(dirname(file), m[2] as string)
      const outside = !target.startsWith(join(root, 'src/browser'))
      if (outside && !m[1]) offending.push(`${relative(root, file)}: ${m[2]}`)
    }
  }
  assert.deepEqual(offending, [])
})

test('the bundle carries no TypeBox', async () => {
  const { 'dashboard.js': js } = await dashboardBundle()
  // TypeBox 1.x marks every schema it builds with a `~kind` property.
  assert.ok(
    !js.includes('~kind'),
    'TypeBox is in dashboard.js: a schema import is not `import type`',
  )
})
