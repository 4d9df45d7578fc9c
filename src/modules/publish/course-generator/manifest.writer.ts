import type { ScormTarget } from './course.types.ts'
import { escapeXml } from './text.escape.ts'

export interface ManifestInput {
  version: ScormTarget
  identifier: string
  title: string
  /** The SCO's launch file. */
  launch: string
  /** Every file of the package except imsmanifest.xml, listed in the resource. */
  files: readonly string[]
}

const NAMESPACES_2004 = [
  'xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"',
  'xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"',
  'xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3"',
  'xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3"',
  'xmlns:imsss="http://www.imsglobal.org/xsd/imsss"',
]

const NAMESPACES_12 = [
  'xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"',
  'xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"',
]

/**
 * imsmanifest.xml for a single-SCO course: one organization, one item, one SCO resource that
 * lists every file. No xsi:schemaLocation: it would oblige the package to carry the XSDs, and
 * no LMS needs them to import. On 2004 the SCO's own reports decide completion and success
 * (deliveryControls: without them a sequencing LMS marks the activity satisfied, i.e. passed,
 * when the attempt ends, although there is no assessment), and the LMS's previous/continue
 * buttons are hidden since the SCO navigates between its slides itself.
 */
export function manifestXml(input: ManifestInput): string {
  const is2004 = input.version === '2004'
  const title = escapeXml(input.title)
  const files = input.files.map((f) => `      <file href="${escapeXml(f)}"/>`).join('\n')
  const presentation = is2004
    ? `
        <imsss:sequencing>
          <imsss:deliveryControls completionSetByContent="true" objectiveSetByContent="true"/>
        </imsss:sequencing>
        <adlnav:presentation>
          <adlnav:navigationInterface>
            <adlnav:hideLMSUI>previous</adlnav:hideLMSUI>
            <adlnav:hideLMSUI>continue</adlnav:hideLMSUI>
          </adlnav:navigationInterface>
        </adlnav:presentation>`
    : ''
  const scormType = is2004 ? 'adlcp:scormType' : 'adlcp:scormtype'
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="${escapeXml(input.identifier)}" version="1"
  ${(is2004 ? NAMESPACES_2004 : NAMESPACES_12).join('\n  ')}>
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>${is2004 ? '2004 4th Edition' : '1.2'}</schemaversion>
  </metadata>
  <organizations default="ORG-1">
    <organization identifier="ORG-1">
      <title>${title}</title>
      <item identifier="ITEM-1" identifierref="RES-1">
        <title>${title}</title>${presentation}
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="RES-1" type="webcontent" ${scormType}="sco" href="${escapeXml(input.launch)}">
${files}
    </resource>
  </resources>
</manifest>
`
}
