/**
 * Reads what a SCORM 2004 LMS derives from a CTS test package manifest at launch time: the items
 * with their launch data, thresholds, objectives (and which are mapped to global objectives) and
 * shared data maps. Just enough of a manifest reader for the conformance replay.
 */
import { readFileSync } from 'node:fs'
import { XMLParser } from 'fast-xml-parser'

export interface ManifestItem {
  identifier: string
  parameters: string
  dataFromLMS?: string
  timeLimitAction?: string
  completionThreshold?: string
  scaledPassingScore?: string
  maxTimeAllowed?: string
  /** imsss objectives in declaration order, primary first. */
  objectives: Array<{ id: string; primary: boolean }>
  /** Objective ids with a mapInfo (imsss or adlseq) to a global objective. */
  mappedObjectives: Set<string>
  primaryObjectiveId?: string
  sharedData: Array<{ id: string; readable: boolean; writable: boolean }>
}

type Node = Record<string, unknown>

const ARRAYS = new Set([
  'item',
  'objective',
  'mapInfo',
  'map',
  'objectives',
  'sequencing',
  'organization',
])

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  trimValues: true,
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name) => ARRAYS.has(name),
})

const list = (v: unknown): Node[] => (Array.isArray(v) ? (v as Node[]) : v ? [v as Node] : [])
const attr = (n: Node | undefined, name: string) => {
  const v = n?.[`@${name}`]
  return typeof v === 'string' ? v.trim() : undefined
}
const text = (v: unknown): string | undefined => {
  if (typeof v === 'string') return v
  if (v && typeof v === 'object' && typeof (v as Node)['#text'] === 'string')
    return (v as Node)['#text'] as string
  return undefined
}

export function readManifestItems(path: string): Map<string, ManifestItem> {
  const doc = parser.parse(readFileSync(path, 'latin1')) as Node
  const manifest = doc.manifest as Node
  const collection = new Map<string, Node>()
  for (const s of list((manifest.sequencingCollection as Node | undefined)?.sequencing)) {
    const id = attr(s, 'ID')
    if (id) collection.set(id, s)
  }
  const items = new Map<string, ManifestItem>()
  const visit = (item: Node) => {
    const children = list(item.item)
    if (children.length === 0) {
      const info = describe(item, collection)
      items.set(info.identifier, info)
    }
    for (const child of children) visit(child)
  }
  for (const org of list((manifest.organizations as Node).organization)) {
    for (const item of list(org.item)) visit(item)
  }
  return items
}

function describe(item: Node, collection: Map<string, Node>): ManifestItem {
  const own = list(item.sequencing)[0]
  const ref = own ? collection.get(attr(own, 'IDRef') ?? '') : undefined
  const pick = (key: string) => (list(own?.[key]).length ? list(own?.[key]) : list(ref?.[key]))
  const objectives: ManifestItem['objectives'] = []
  const mapped = new Set<string>()
  let primaryObjectiveId: string | undefined
  let scaledPassingScore: string | undefined
  for (const group of pick('objectives')) {
    for (const [key, primary] of [
      ['primaryObjective', true],
      ['objective', false],
    ] as const) {
      for (const o of list(group[key])) {
        if (primary && attr(o, 'satisfiedByMeasure') === 'true') {
          scaledPassingScore = text(o.minNormalizedMeasure)?.trim() ?? '1.0'
        }
        const raw = attr(o, 'objectiveID')
        if (!raw) continue
        const id = decodeId(raw)
        if (list(o.mapInfo).length > 0) mapped.add(id)
        if (primary) primaryObjectiveId = id
        // adlseq:objectives (merged here by the namespace-free parse) only add maps to the
        // imsss objectives of the same id, so de-duplicating by id is enough.
        if (!objectives.some((x) => x.id === id)) objectives.push({ id, primary })
      }
    }
  }
  const threshold = item.completionThreshold as Node | string | undefined
  const thresholdNode = typeof threshold === 'object' ? threshold : undefined
  const byMeasure = attr(thresholdNode, 'completedByMeasure') === 'true'
  const limits = pick('limitConditions')[0]
  const maps = list((item.data as Node | undefined)?.map)
  const info: ManifestItem = {
    identifier: attr(item, 'identifier') ?? '',
    parameters: attr(item, 'parameters') ?? '',
    objectives,
    mappedObjectives: mapped,
    sharedData: maps.map((m) => ({
      id: attr(m, 'targetID') ?? '',
      readable: attr(m, 'readSharedData') !== 'false',
      writable: attr(m, 'writeSharedData') !== 'false',
    })),
  }
  const dataFromLMS = text(item.dataFromLMS)
  if (dataFromLMS !== undefined) info.dataFromLMS = dataFromLMS
  const tla = text(item.timeLimitAction)
  if (tla !== undefined) info.timeLimitAction = tla.trim()
  if (byMeasure) info.completionThreshold = attr(thresholdNode, 'minProgressMeasure') ?? '1.0'
  if (scaledPassingScore !== undefined) info.scaledPassingScore = scaledPassingScore
  const duration = attr(limits, 'attemptAbsoluteDurationLimit')
  if (duration) info.maxTimeAllowed = duration
  if (primaryObjectiveId) info.primaryObjectiveId = primaryObjectiveId
  return info
}

/** Objective ids are anyURIs; ADL's LMS hands them to the SCO with %XX escapes decoded. */
function decodeId(id: string): string {
  try {
    return decodeURIComponent(id)
  } catch {
    return id
  }
}
