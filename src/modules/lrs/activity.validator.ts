import { invalid, isIri, isLanguageTag, isObject, onlyKeys } from './xapi-primitives.ts'

const INTERACTION_TYPES = [
  'true-false',
  'choice',
  'fill-in',
  'long-fill-in',
  'matching',
  'performance',
  'sequencing',
  'likert',
  'numeric',
  'other',
]
const COMPONENT_LISTS = ['choices', 'scale', 'source', 'target', 'steps']
/** Which component lists each interaction type may carry (xAPI "Interaction Components"). */
const COMPONENTS_OF: Record<string, string[]> = {
  choice: ['choices'],
  sequencing: ['choices'],
  likert: ['scale'],
  matching: ['source', 'target'],
  performance: ['steps'],
}

export function checkLanguageMap(value: unknown, path: string): void {
  if (!isObject(value)) invalid(path, 'must be a language map')
  for (const [tag, text] of Object.entries(value)) {
    if (!isLanguageTag(tag)) invalid(path, `"${tag}" is not an RFC 5646 language tag`)
    if (typeof text !== 'string') invalid(`${path}.${tag}`, 'must be a string')
  }
}

export function checkExtensions(value: unknown, path: string): void {
  if (!isObject(value)) invalid(path, 'must be an object')
  for (const key of Object.keys(value)) {
    if (!isIri(key)) invalid(path, `key "${key}" is not an IRI`)
  }
}

export function checkIri(value: unknown, path: string): void {
  if (!isIri(value)) invalid(path, 'must be an IRI')
}

export function checkString(value: unknown, path: string): void {
  if (typeof value !== 'string') invalid(path, 'must be a string')
}

function checkDefinition(value: unknown, path: string): void {
  if (!isObject(value)) invalid(path, 'must be an object')
  onlyKeys(
    value,
    [
      'name',
      'description',
      'type',
      'moreInfo',
      'extensions',
      'interactionType',
      'correctResponsesPattern',
      ...COMPONENT_LISTS,
    ],
    path,
  )
  if ('name' in value) checkLanguageMap(value.name, `${path}.name`)
  if ('description' in value) checkLanguageMap(value.description, `${path}.description`)
  if ('type' in value) checkIri(value.type, `${path}.type`)
  if ('moreInfo' in value) checkIri(value.moreInfo, `${path}.moreInfo`)
  if ('extensions' in value) checkExtensions(value.extensions, `${path}.extensions`)
  if ('interactionType' in value && !INTERACTION_TYPES.includes(String(value.interactionType))) {
    invalid(`${path}.interactionType`, 'is not an interaction type')
  }
  if ('interactionType' in value && typeof value.interactionType !== 'string') {
    invalid(`${path}.interactionType`, 'must be a string')
  }
  if ('correctResponsesPattern' in value) {
    const crp = value.correctResponsesPattern
    if (!Array.isArray(crp) || crp.some((p) => typeof p !== 'string')) {
      invalid(`${path}.correctResponsesPattern`, 'must be an array of strings')
    }
  }
  const interaction = typeof value.interactionType === 'string' ? value.interactionType : undefined
  if (!interaction && ['correctResponsesPattern', ...COMPONENT_LISTS].some((k) => k in value)) {
    invalid(path, 'interaction properties need an interactionType')
  }
  for (const list of COMPONENT_LISTS) {
    if (!(list in value)) continue
    if (!COMPONENTS_OF[interaction ?? '']?.includes(list)) {
      invalid(`${path}.${list}`, `is not a component of a ${interaction} interaction`)
    }
    const items = value[list]
    if (!Array.isArray(items)) invalid(`${path}.${list}`, 'must be an array')
    const ids = new Set<string>()
    items.forEach((item, i) => {
      const at = `${path}.${list}[${i}]`
      if (!isObject(item)) invalid(at, 'must be an interaction component')
      onlyKeys(item, ['id', 'description'], at)
      checkString(item.id, `${at}.id`)
      if (ids.has(String(item.id))) invalid(at, 'interaction component ids must be unique')
      ids.add(String(item.id))
      if ('description' in item) checkLanguageMap(item.description, `${at}.description`)
    })
  }
}

export function checkActivity(value: unknown, path: string): void {
  if (!isObject(value)) invalid(path, 'must be an Activity object')
  if ('objectType' in value && value.objectType !== 'Activity') {
    invalid(`${path}.objectType`, 'must be "Activity"')
  }
  onlyKeys(value, ['objectType', 'id', 'definition'], path)
  checkIri(value.id, `${path}.id`)
  if ('definition' in value) checkDefinition(value.definition, `${path}.definition`)
}
