import { AppError } from '../../../shared/app-error.ts'
import { joinBases, type ResolvedHref, resolveHref } from './launch-href.ts'
import type {
  CompletionThreshold,
  ManifestItem,
  ManifestOrganization,
  ManifestResource,
  ScormEdition,
  ScormVersion,
  SharedDataMap,
} from './manifest.types.ts'
import { MANIFEST_LIMITS } from './manifest-limits.ts'
import { detectScormVersion } from './scorm-version.ts'
import { parseSequencing } from './sequencing.parser.ts'
import type { SequencingDefinition } from './sequencing.types.ts'
import {
  attr,
  childNamed,
  childrenNamed,
  cleanText,
  parseXmlDocument,
  type XmlElement,
  xmlBase,
} from './xml.reader.ts'

/** A manifest read into data, before it is checked against the zip's files. */
export interface ParsedScormManifest {
  identifier: string | null
  version: ScormVersion
  edition: ScormEdition | null
  metadataTitle: string | null
  description: string | null
  /** False when the manifest has no `<organizations>` element at all. */
  hasOrganizationsElement: boolean
  defaultOrganization: string | null
  organizations: ManifestOrganization[]
  resources: ManifestResource[]
  /** Resolved href of each resource that has one, by identifier. */
  resourceHrefs: Map<string, ResolvedHref>
  sequencingCollection: SequencingDefinition[]
  warnings: string[]
}

export const MANIFEST_FILE = 'imsmanifest.xml'

function invalid(message: string): AppError {
  return new AppError('invalid_package', `${MANIFEST_FILE}: ${message}`)
}

/** Text of lom/general/<field> (LOM `string` or IMS MD 1.2 `langstring`), if any. */
function lomText(metadata: XmlElement | undefined, field: string): string | null {
  const lom = metadata && childNamed(metadata, 'lom')
  const el = lom && childNamed(childNamed(lom, 'general') ?? lom, field)
  if (!el) return null
  const strings = [...childrenNamed(el, 'string'), ...childrenNamed(el, 'langstring')]
  const text = cleanText(strings.find((s) => cleanText(s.text))?.text ?? el.text)
  return text || null
}

function optionalText(el: XmlElement, name: string): string | null {
  const child = childNamed(el, name, true)
  const text = child ? cleanText(child.text) : ''
  return text || null
}

function completionThreshold(
  item: XmlElement,
  warn: (m: string) => void,
): CompletionThreshold | null {
  const el = childNamed(item, 'completionThreshold', true)
  const attribute = attr(item, 'completionThreshold', true)
  if (!el && attribute === undefined) return null
  const num = (raw: string | undefined, fallback: number): number => {
    if (raw === undefined || raw.trim() === '') return fallback
    const n = Number(raw)
    if (Number.isFinite(n) && n >= 0 && n <= 1) return n
    warn(`Ignored completionThreshold value "${raw}": it must be between 0 and 1.`)
    return fallback
  }
  // 3rd Edition writes the threshold as element text (or, in some tools, an item attribute);
  // it means "completed once progress_measure reaches it", i.e. completedByMeasure in 4th.
  const legacy = el ? cleanText(el.text) : (attribute ?? '')
  if (legacy) {
    return { completedByMeasure: true, minProgressMeasure: num(legacy, 1), progressWeight: 1 }
  }
  if (!el) return null
  return {
    completedByMeasure: attr(el, 'completedByMeasure') === 'true',
    minProgressMeasure: num(attr(el, 'minProgressMeasure'), 1),
    progressWeight: num(attr(el, 'progressWeight'), 1),
  }
}

function sharedData(item: XmlElement): SharedDataMap[] {
  const data = childNamed(item, 'data')
  if (!data) return []
  return childrenNamed(data, 'map').map((m) => ({
    targetID: attr(m, 'targetID') ?? '',
    readSharedData: attr(m, 'readSharedData') !== 'false',
    // Both default to true (CAM 4th Ed.; ADL's DDM test writes through maps that set neither).
    writeSharedData: attr(m, 'writeSharedData') !== 'false',
  }))
}

function masteryScore(item: XmlElement, warn: (m: string) => void): number | null {
  const raw = optionalText(item, 'masteryscore')
  if (raw === null) return null
  const n = Number(raw)
  if (Number.isFinite(n) && n >= 0 && n <= 100) return n
  warn(`Ignored adlcp:masteryscore "${raw}": it must be a number from 0 to 100.`)
  return null
}

function parseItem(el: XmlElement, warn: (m: string) => void, depth = 1): ManifestItem {
  const identifier = attr(el, 'identifier') ?? ''
  if (depth > MANIFEST_LIMITS.maxItemDepth) {
    throw new AppError(
      'invalid_package',
      `${MANIFEST_FILE}: item '${identifier}' is nested ${depth} levels deep; at most ${MANIFEST_LIMITS.maxItemDepth} are accepted (limit maxItemDepth).`,
      { limit: 'maxItemDepth', max: MANIFEST_LIMITS.maxItemDepth },
    )
  }
  if (!identifier) warn('An item has no identifier attribute.')
  const seqEl = childNamed(el, 'sequencing')
  const sequencing = seqEl ? parseSequencing(seqEl, warn) : null
  const primary = sequencing?.objectives?.primary
  const nav = childNamed(childNamed(el, 'presentation') ?? el, 'navigationInterface')
  return {
    identifier,
    title: cleanText(childNamed(el, 'title')?.text) || identifier,
    identifierref: attr(el, 'identifierref')?.trim() || null,
    isvisible: attr(el, 'isvisible')?.trim() !== 'false',
    parameters: attr(el, 'parameters') ?? null,
    launchHref: null,
    launchPath: null,
    scormType: null,
    masteryScore: masteryScore(el, warn),
    scaledPassingScore:
      primary?.satisfiedByMeasure === true ? (primary.minNormalizedMeasure ?? 1) : null,
    prerequisites: optionalText(el, 'prerequisites'),
    maxTimeAllowed:
      optionalText(el, 'maxtimeallowed') ??
      sequencing?.limitConditions?.attemptAbsoluteDurationLimit ??
      null,
    timeLimitAction: optionalText(el, 'timelimitaction'),
    dataFromLms: optionalText(el, 'datafromlms'),
    completionThreshold: completionThreshold(el, warn),
    sequencing,
    hideLmsUi: nav ? childrenNamed(nav, 'hideLMSUI').map((h) => cleanText(h.text)) : [],
    sharedData: sharedData(el),
    children: childrenNamed(el, 'item').map((child) => parseItem(child, warn, depth + 1)),
  }
}

function parseOrganization(el: XmlElement, warn: (m: string) => void): ManifestOrganization {
  const seqEl = childNamed(el, 'sequencing')
  const identifier = attr(el, 'identifier') ?? ''
  return {
    identifier,
    title: cleanText(childNamed(el, 'title')?.text),
    items: childrenNamed(el, 'item').map((item) => parseItem(item, warn)),
    sequencing: seqEl ? parseSequencing(seqEl, warn) : null,
    objectivesGlobalToSystem: attr(el, 'objectivesGlobalToSystem') !== 'false',
    sharedDataGlobalToSystem: attr(el, 'sharedDataGlobalToSystem') !== 'false',
  }
}

function scormTypeOf(el: XmlElement): 'sco' | 'asset' | null {
  const value = attr(el, 'scormtype', true)?.trim().toLowerCase()
  return value === 'sco' || value === 'asset' ? value : null
}

function parseResources(
  manifest: XmlElement,
  resourcesEl: XmlElement,
  hrefs: Map<string, ResolvedHref>,
): ManifestResource[] {
  return childrenNamed(resourcesEl, 'resource').map((el) => {
    const base = joinBases([xmlBase(manifest), xmlBase(resourcesEl), xmlBase(el)])
    const identifier = attr(el, 'identifier') ?? ''
    const href = attr(el, 'href')?.trim() || null
    const resolved = href ? resolveHref(base, href) : null
    if (resolved) hrefs.set(identifier, resolved)
    const files: string[] = []
    for (const file of childrenNamed(el, 'file')) {
      const fileHref = attr(file, 'href')
      const r = fileHref ? resolveHref(base, fileHref) : null
      if (r?.kind === 'file') files.push(r.path)
    }
    return {
      identifier,
      type: attr(el, 'type') ?? '',
      scormType: scormTypeOf(el),
      href,
      base,
      launchPath: resolved?.kind === 'file' ? resolved.path : null,
      files,
      dependencies: childrenNamed(el, 'dependency')
        .map((d) => attr(d, 'identifierref')?.trim() ?? '')
        .filter(Boolean),
    }
  })
}

/** Parses imsmanifest.xml text into data; structural problems raise AppError. */
export function parseScormManifest(text: string): ParsedScormManifest {
  const doc = parseXmlDocument(text, MANIFEST_FILE, {
    maxElements: MANIFEST_LIMITS.maxManifestElements,
    beforeParse: (scan) => {
      const items = scan.byLocalName.get('item') ?? 0
      if (items > MANIFEST_LIMITS.maxManifestItems) {
        throw new AppError(
          'invalid_package',
          `${MANIFEST_FILE}: the manifest has ${items} items; at most ${MANIFEST_LIMITS.maxManifestItems} are accepted (limit maxManifestItems).`,
          { limit: 'maxManifestItems', max: MANIFEST_LIMITS.maxManifestItems, found: items },
        )
      }
    },
  })
  const manifest = doc.root
  if (manifest.name !== 'manifest') {
    throw invalid(
      `the top element is <${manifest.name}>, but a SCORM manifest starts with <manifest>.`,
    )
  }
  const warnings: string[] = []
  const warn = (m: string) => warnings.push(m)
  const metadata = childNamed(manifest, 'metadata')
  const schemaversion = metadata ? optionalText(metadata, 'schemaversion') : null
  const detected = detectScormVersion(doc, schemaversion)
  warnings.push(...detected.warnings)

  const resourcesEl = childNamed(manifest, 'resources')
  if (!resourcesEl)
    throw invalid('the manifest has no <resources> element, so there is nothing to launch.')
  const resourceHrefs = new Map<string, ResolvedHref>()
  const resources = parseResources(manifest, resourcesEl, resourceHrefs)
  if (resources.length === 0) {
    throw invalid('the <resources> element is empty, so there is nothing to launch.')
  }

  const orgsEl = childNamed(manifest, 'organizations')
  const organizations = orgsEl
    ? childrenNamed(orgsEl, 'organization').map((o) => parseOrganization(o, warn))
    : []
  const collectionEl = childNamed(manifest, 'sequencingCollection')
  return {
    identifier: attr(manifest, 'identifier') ?? null,
    version: detected.version,
    edition: detected.edition,
    metadataTitle: lomText(metadata, 'title'),
    description: lomText(metadata, 'description'),
    hasOrganizationsElement: orgsEl !== undefined,
    defaultOrganization: (orgsEl && attr(orgsEl, 'default')?.trim()) || null,
    organizations,
    resources,
    resourceHrefs,
    sequencingCollection: collectionEl
      ? childrenNamed(collectionEl, 'sequencing').map((s) => parseSequencing(s, warn))
      : [],
    warnings,
  }
}
