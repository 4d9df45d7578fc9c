import type { ScormEdition, ScormVersion } from './manifest.types.ts'
import type { XmlDocument, XmlElement } from './xml.reader.ts'

export interface DetectedVersion {
  version: ScormVersion
  edition: ScormEdition | null
  warnings: string[]
}

/** Reads `<metadata><schemaversion>`: "1.2", "CAM 1.3", "2004 3rd Edition", "2004 4th Edition". */
export function versionFromSchemaVersion(
  value: string | null,
): { version: ScormVersion; edition: ScormEdition | null } | null {
  if (!value) return null
  const s = value.trim().toLowerCase()
  if (/4th/.test(s)) return { version: '2004', edition: '4th' }
  if (/3rd/.test(s)) return { version: '2004', edition: '3rd' }
  if (/2nd|cam\s*1\.3/.test(s) || s === '1.3') return { version: '2004', edition: '2nd' }
  if (/^(scorm\s*)?1\.2\b/.test(s)) return { version: '1.2', edition: null }
  if (/2004|1\.3/.test(s)) return { version: '2004', edition: null }
  return null
}

const NS_12 = ['adlcp_rootv1p2', 'imscp_rootv1p1p2']
const NS_2004 = ['adlcp_v1p3', 'adlseq_v1p3', 'adlnav_v1p3', 'imsss', 'imscp_v1p1']

/** Which SCORM version the declared namespaces point to. */
export function versionFromNamespaces(namespaces: Set<string>): ScormVersion | 'mixed' | null {
  const list = [...namespaces].map((n) => n.toLowerCase())
  const is12 = list.some((n) => NS_12.some((hint) => n.includes(hint)))
  const is2004 = list.some((n) => NS_2004.some((hint) => n.includes(hint)))
  if (is12 && is2004) return 'mixed'
  if (is12) return '1.2'
  if (is2004) return '2004'
  return null
}

function someElement(el: XmlElement, test: (e: XmlElement) => boolean): boolean {
  if (test(el)) return true
  return el.children.some((c) => someElement(c, test))
}

const FOURTH_ONLY_ATTRIBUTES = new Set([
  'completedByMeasure',
  'minProgressMeasure',
  'progressWeight',
])

/** 4th Edition added shared data (adlcp:data), adlseq:objectives and measure-based completion. */
function usesFourthEditionFeatures(root: XmlElement): boolean {
  return someElement(root, (e) => {
    if (e.name === 'data' && e.children.some((c) => c.name === 'map')) return true
    if (e.name === 'objectives' && (e.ns ?? e.prefix).toLowerCase().includes('adlseq')) return true
    if (e.name === 'completionThreshold') {
      return e.attributes.some((a) => FOURTH_ONLY_ATTRIBUTES.has(a.name))
    }
    return false
  })
}

function usesSequencing(root: XmlElement): boolean {
  return someElement(root, (e) => e.name === 'sequencing' || e.name === 'sequencingCollection')
}

/**
 * Decides SCORM 1.2 or 2004 (and the 2004 edition). `schemaversion` is what authors and tools
 * state on purpose, so it decides, unless the namespaces clearly say otherwise (they define what
 * the elements mean). Without schemaversion the edition is inferred from the features used.
 */
export function detectScormVersion(
  doc: XmlDocument,
  schemaversion: string | null,
): DetectedVersion {
  const warnings: string[] = []
  const stated = versionFromSchemaVersion(schemaversion)
  const byNamespace = versionFromNamespaces(doc.namespaces)
  let version: ScormVersion
  let edition: ScormEdition | null = null
  if (
    stated &&
    (byNamespace === null || byNamespace === 'mixed' || byNamespace === stated.version)
  ) {
    version = stated.version
    edition = stated.edition
  } else if (stated && byNamespace) {
    version = byNamespace as ScormVersion
    warnings.push(
      `The manifest says schemaversion "${schemaversion}" but uses SCORM ${version} namespaces; it was treated as SCORM ${version}.`,
    )
  } else if (byNamespace === '1.2' || byNamespace === '2004') {
    version = byNamespace
  } else if (usesSequencing(doc.root)) {
    version = '2004'
  } else {
    version = '1.2'
    if (schemaversion) {
      warnings.push(
        `The manifest's schemaversion "${schemaversion}" is not a known SCORM version; it was treated as SCORM 1.2.`,
      )
    } else {
      warnings.push(
        'The manifest does not say which SCORM version it uses; it was treated as SCORM 1.2.',
      )
    }
  }
  if (version === '2004' && edition === null) {
    edition = usesFourthEditionFeatures(doc.root) ? '4th' : '3rd'
    if (edition === '3rd') {
      warnings.push(
        'The manifest does not name its SCORM 2004 edition (metadata/schemaversion); it was treated as 3rd Edition.',
      )
    }
  }
  return { version, edition: version === '1.2' ? null : edition, warnings }
}
