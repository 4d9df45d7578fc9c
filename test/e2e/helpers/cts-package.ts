/**
 * ADL CTS sequencing cases (../shared/fixtures/scorm/adl-cts-4ed) as uploadable packages: the
 * case's own manifest, byte for byte, with one small test SCO page standing in for every HTML
 * file it names (ADL's pages are not in the fixtures). The page finds API_1484_11 the standard
 * way and exposes `window.cts`, through which the test runs the case's steps for the delivery
 * (the scripted API calls, the results and adl.nav.request), Terminates, and arms what the page
 * does when the player unloads it.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildZip } from '../../helpers/zip-builder.ts'
import type { SeqCase } from '../../unit/scorm/sequencing/cts/seq-case.types.ts'

export const CTS_DIR = join(import.meta.dirname, '../../../../shared/fixtures/scorm/adl-cts-4ed')

export function loadCtsCase(id: string): SeqCase {
  return JSON.parse(readFileSync(join(CTS_DIR, 'cases', `${id}.json`), 'utf8')) as SeqCase
}

/**
 * The test SCO. `cts.run(steps)` makes the delivery's API calls in order and returns the reads
 * of adl.nav.request_valid.* that differ from the case; `cts.terminate()` calls Terminate;
 * `cts.onUnload(calls)` makes those calls (SetValue adl.nav.request, Terminate) when the page
 * is unloaded, as ADL's "…OnUnload" pages do.
 */
const SCO_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>CTS test SCO</title>
<style>body{font:18px sans-serif;margin:2rem}</style></head>
<body><h1 id="act">CTS activity</h1><p id="out">loading</p>
<script>
var w = window, hops = 0
while (w && !w.API_1484_11 && w.parent && w.parent !== w && hops < 10) { w = w.parent; hops++ }
var api = w.API_1484_11
var query = new URLSearchParams(location.search)
function lookup(l) {
  var count = Number(api.GetValue(l.countElement))
  for (var n = 0; n < count; n++) if (api.GetValue(l.idElement.replace('{n}', String(n))) === l.id) return n
  return -1
}
window.cts = {
  tc: query.get('tc'),
  act: query.get('act'),
  run: function (steps) {
    var problems = []
    steps.forEach(function (s) {
      var element = s.element || ''
      if (s.indexLookup) {
        var n = lookup(s.indexLookup)
        if (n < 0) return
        element = element.replace(s.indexLookup.placeholder, String(n))
      }
      switch (s.method) {
        case 'Initialize': api.Initialize(''); break
        case 'Terminate': api.Terminate(''); break
        case 'Commit': api.Commit(''); break
        case 'SetValue': api.SetValue(element, s.value == null ? '' : s.value); break
        case 'GetValue':
          var got = api.GetValue(element)
          if (element.indexOf('adl.nav.request_valid.') === 0 && got !== s.expectedReturn)
            problems.push(s.key + ' ' + element + ': ' + got + ', expected ' + s.expectedReturn)
          break
      }
    })
    document.getElementById('out').textContent = 'steps done'
    return problems
  },
  terminate: function () { return api.Terminate('') },
  onUnload: function (calls) {
    window.addEventListener('pagehide', function () {
      calls.forEach(function (c) {
        if (c.method === 'SetValue') api.SetValue(c.args[0], c.args[1])
        else if (c.method === 'Terminate') api.Terminate('')
      })
    })
  },
}
document.getElementById('act').textContent = 'Activity ' + window.cts.act + ' (' + window.cts.tc + ')'
document.getElementById('out').textContent = api ? 'ready' : 'no API'
</script></body></html>`

/** Every file the manifest names, each HTML page the test SCO, the rest a placeholder. */
export function buildCtsPackage(manifestPath: string): Buffer {
  const manifest = readFileSync(join(CTS_DIR, manifestPath))
  const text = manifest.toString('latin1')
  // Files are named relative to the xml:base of their resources (and of the <resources> around
  // them): each name goes under every base and pair of bases.
  const bases = new Set([''])
  for (const m of text.matchAll(/xml:base\s*=\s*"([^"]*)"/g)) bases.add((m[1] as string).trim())
  const hrefs = new Set<string>()
  for (const m of text.matchAll(/\bhref\s*=\s*"([^"?#]+)/g)) {
    const href = (m[1] as string).trim()
    for (const outer of bases) for (const inner of bases) hrefs.add(`${outer}${inner}${href}`)
  }
  return buildZip([
    { name: 'imsmanifest.xml', data: manifest },
    ...[...hrefs].map((href) => ({
      name: href,
      data: /\.html?$/i.test(href) ? SCO_PAGE : `placeholder for ${href}\n`,
    })),
  ])
}
