import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildZip } from '../../helpers/zip-builder.ts'

const NS = `xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
  xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3"
  xmlns:imsss="http://www.imsglobal.org/xsd/imsss"`

export interface SequencedItem {
  id: string
  /** XML inside the item's `<imsss:sequencing>`; none when absent. */
  sequencing?: string
}

/**
 * A SCORM 2004 4th Edition course of one SCO per item, with the sequencing XML given for each
 * item and for the organization (`orgSequencing`, `orgAttributes` such as
 * `adlseq:objectivesGlobalToSystem="false"`).
 */
export function sequencedPackage(input: {
  id: string
  items: SequencedItem[]
  orgSequencing?: string
  orgAttributes?: string
}): Buffer {
  const seq = (xml: string | undefined) =>
    xml === undefined ? '' : `<imsss:sequencing>${xml}</imsss:sequencing>`
  const manifest = `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="${input.id}" version="1" ${NS}>
  <metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion></metadata>
  <organizations default="org">
    <organization identifier="org" ${input.orgAttributes ?? ''}>
      <title>${input.id}</title>
      ${input.items
        .map(
          (item) =>
            `<item identifier="${item.id}" identifierref="res_${item.id}"><title>${item.id}</title>${seq(item.sequencing)}</item>`,
        )
        .join('\n      ')}
      ${seq(input.orgSequencing)}
    </organization>
  </organizations>
  <resources>
    ${input.items
      .map(
        (item) =>
          `<resource identifier="res_${item.id}" type="webcontent" adlcp:scormType="sco" href="${item.id}.html"><file href="${item.id}.html"/></resource>`,
      )
      .join('\n    ')}
  </resources>
</manifest>`
  return buildZip([
    { name: 'imsmanifest.xml', data: manifest },
    ...input.items.map((item) => ({ name: `${item.id}.html`, data: `<html>${item.id}</html>` })),
  ])
}

const CTS = join(import.meta.dirname, '../../../../shared/fixtures/scorm/adl-cts-4ed')

/**
 * One of ADL's CTS test packages (fixtures/scorm/adl-cts-4ed, manifests byte for byte), zipped
 * with a placeholder page for every file its resources list (the suite's own pages are not
 * shipped).
 */
export function ctsPackage(caseId: string): Buffer {
  const manifest = readFileSync(join(CTS, 'packages', caseId, 'imsmanifest.xml'), 'utf8')
  const files = new Set<string>()
  for (const [, attrs = '', body = ''] of manifest.matchAll(
    /<resource\b([^>]*)>([\s\S]*?)<\/resource>/g,
  )) {
    const base = /xml:base\s*=\s*"([^"]*)"/.exec(attrs)?.[1] ?? ''
    for (const [, href] of body.matchAll(/<file\s+href\s*=\s*"([^"]+)"/g)) files.add(base + href)
  }
  return buildZip([
    { name: 'imsmanifest.xml', data: manifest },
    ...[...files].map((name) => ({ name, data: '<html>CTS placeholder</html>' })),
  ])
}

export interface CtsStep {
  key: string
  method: string
  element?: string
  value?: string
  expectedReturn?: unknown
  adlCheck?: string
  indexLookup?: { id: string; placeholder: string; countElement: string; idElement: string }
}

export interface CtsDelivery {
  key: string
  items: { identifier: string }[]
  steps: CtsStep[]
}

export function ctsCase(caseId: string): { deliveries: CtsDelivery[] } {
  return JSON.parse(readFileSync(join(CTS, 'cases', `${caseId}.json`), 'utf8'))
}
