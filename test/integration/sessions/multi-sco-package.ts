import { buildZip } from '../../helpers/zip-builder.ts'

/** A course of `count` SCOs (item_1 … item_n), each its own page, as SCORM 1.2 or 2004. */
export function multiScoPackage(version: '1.2' | '2004', count: number): Buffer {
  const ids = Array.from({ length: count }, (_, i) => i + 1)
  const schema =
    version === '1.2'
      ? `<schema>ADL SCORM</schema><schemaversion>1.2</schemaversion>`
      : `<schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion>`
  const ns =
    version === '1.2'
      ? `xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"`
      : `xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"`
  const scoType = version === '1.2' ? 'adlcp:scormtype="sco"' : 'adlcp:scormType="sco"'
  const manifest = `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="multi-${version}" version="1" ${ns}>
  <metadata>${schema}</metadata>
  <organizations default="org">
    <organization identifier="org">
      <title>Multi-SCO course</title>
      ${ids.map((i) => `<item identifier="item_${i}" identifierref="res_${i}"><title>Lesson ${i}</title></item>`).join('\n      ')}
    </organization>
  </organizations>
  <resources>
    ${ids.map((i) => `<resource identifier="res_${i}" type="webcontent" ${scoType} href="sco${i}.html"><file href="sco${i}.html"/></resource>`).join('\n    ')}
  </resources>
</manifest>`
  return buildZip([
    { name: 'imsmanifest.xml', data: manifest },
    ...ids.map((i) => ({ name: `sco${i}.html`, data: `<html><body>Lesson ${i}</body></html>` })),
  ])
}
