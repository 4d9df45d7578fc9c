/**
 * Small SCORM packages written by a test: a manifest and one HTML page per SCO whose script the
 * test supplies. Each page finds the API the standard way (walking `parent`) as `api`, and shows
 * `#out` for the test to wait on.
 */
import { buildZip } from '../../helpers/zip-builder.ts'

export interface TestSco {
  readonly id: string
  readonly title: string
  /** Script run on load, with `api` (API_1484_11 or API) in scope. */
  readonly script?: string
  /** `isvisible="false"` when false. */
  readonly visible?: boolean
  /** SCORM 1.2 adlcp:prerequisites. */
  readonly prerequisites?: string
}

export interface TestHeading {
  readonly id: string
  readonly title: string
  readonly visible?: boolean
  readonly children: readonly (TestSco | TestHeading)[]
}

export interface TestPackage {
  readonly version: '1.2' | '2004'
  readonly title: string
  readonly items: readonly (TestSco | TestHeading)[]
  /** 2004: the organization's imsss:controlMode (flow / choice), when given. */
  readonly controlMode?: { readonly flow?: boolean; readonly choice?: boolean }
}

const esc = (s: string) =>
  s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('"', '&quot;')

function scoPage(version: '1.2' | '2004', sco: TestSco): string {
  const name = version === '2004' ? 'API_1484_11' : 'API'
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(sco.title)}</title>
<style>body{font:18px sans-serif;margin:2rem}</style></head>
<body><h1>${esc(sco.title)}</h1><p id="out">loading</p>
<script>
var w = window, hops = 0
while (w && !w.${name} && w.parent && w.parent !== w && hops < 10) { w = w.parent; hops++ }
var api = w.${name}
${sco.script ?? ''}
document.getElementById('out').textContent = 'ready'
</script></body></html>`
}

function isHeading(item: TestSco | TestHeading): item is TestHeading {
  return 'children' in item
}

function itemXml(p: TestPackage, item: TestSco | TestHeading, indent: string): string {
  const hidden = item.visible === false ? ' isvisible="false"' : ''
  if (isHeading(item)) {
    const inner = item.children.map((c) => itemXml(p, c, `${indent}  `)).join('\n')
    return `${indent}<item identifier="${item.id}"${hidden}><title>${esc(item.title)}</title>\n${inner}\n${indent}</item>`
  }
  const prereq =
    item.prerequisites !== undefined
      ? `<adlcp:prerequisites type="aicc_script">${esc(item.prerequisites)}</adlcp:prerequisites>`
      : ''
  return `${indent}<item identifier="${item.id}" identifierref="r_${item.id}"${hidden}><title>${esc(item.title)}</title>${prereq}</item>`
}

function scos(items: readonly (TestSco | TestHeading)[]): TestSco[] {
  return items.flatMap((i) => (isHeading(i) ? scos(i.children) : [i]))
}

export function buildTestPackage(p: TestPackage): Buffer {
  const is2004 = p.version === '2004'
  const ns = is2004
    ? `xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss"`
    : `xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"`
  const schema = is2004
    ? '<schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion>'
    : '<schema>ADL SCORM</schema><schemaversion>1.2</schemaversion>'
  const cm = p.controlMode
  const sequencing =
    is2004 && cm
      ? `<imsss:sequencing><imsss:controlMode${cm.flow !== undefined ? ` flow="${cm.flow}"` : ''}${cm.choice !== undefined ? ` choice="${cm.choice}"` : ''}/></imsss:sequencing>`
      : ''
  const scoType = is2004 ? 'adlcp:scormType="sco"' : 'adlcp:scormtype="sco"'
  const resources = scos(p.items)
    .map(
      (s) =>
        `<resource identifier="r_${s.id}" type="webcontent" ${scoType} href="${s.id}.html"><file href="${s.id}.html"/></resource>`,
    )
    .join('\n    ')
  const manifest = `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="test_${p.version.replace('.', '')}" version="1" ${ns}>
  <metadata>${schema}</metadata>
  <organizations default="org">
    <organization identifier="org">
      <title>${esc(p.title)}</title>
${p.items.map((i) => itemXml(p, i, '      ')).join('\n')}
      ${sequencing}
    </organization>
  </organizations>
  <resources>
    ${resources}
  </resources>
</manifest>
`
  return buildZip([
    { name: 'imsmanifest.xml', data: manifest },
    ...scos(p.items).map((s) => ({ name: `${s.id}.html`, data: scoPage(p.version, s) })),
  ])
}
