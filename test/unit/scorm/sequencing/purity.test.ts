import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'

const ROOT = join(import.meta.dirname, '../../../../src/modules/scorm/sequencing')

// The player bundles the engine for the browser (DESIGN §12), and domain code never reads the
// environment: the engine must stay free of Node built-ins, I/O and the web framework.
test('the sequencing engine imports nothing that ties it to Node or the server', () => {
  const files = readdirSync(ROOT, { recursive: true, encoding: 'utf8' }).filter((f) =>
    f.endsWith('.ts'),
  )
  assert.ok(files.length > 10)
  for (const f of files) {
    const text = readFileSync(join(ROOT, f), 'utf8')
    const imports = [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1] as string)
    for (const spec of imports) {
      assert.ok(spec.startsWith('.'), `${f} imports ${spec}`)
      assert.ok(!spec.includes('/infra/') && !spec.includes('/http/'), `${f} imports ${spec}`)
    }
    assert.ok(!/process\.env|\bfetch\(/.test(text), `${f} reaches outside`)
  }
})
