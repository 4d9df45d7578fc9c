import { invalid, isIri, isMailto, isObject, type JsonObject, onlyKeys } from './xapi-primitives.ts'

const IFI_KEYS = ['mbox', 'mbox_sha1sum', 'openid', 'account'] as const

/** Checks the IFI properties present; returns how many there are. */
function checkIfis(value: JsonObject, path: string): number {
  let count = 0
  for (const key of IFI_KEYS) {
    if (!(key in value)) continue
    count++
    const v = value[key]
    if (key === 'mbox' && !isMailto(v)) invalid(`${path}.mbox`, 'must be a mailto: IRI')
    if (key === 'mbox_sha1sum' && !(typeof v === 'string' && /^[0-9a-f]{40}$/i.test(v))) {
      invalid(`${path}.mbox_sha1sum`, 'must be a SHA-1 hex string')
    }
    if (key === 'openid' && !isIri(v)) invalid(`${path}.openid`, 'must be a URI')
    if (key === 'account') checkAccount(v, `${path}.account`)
  }
  return count
}

function checkAccount(value: unknown, path: string): void {
  if (!isObject(value)) invalid(path, 'must be an object')
  onlyKeys(value, ['homePage', 'name'], path)
  if (!isIri(value.homePage)) invalid(`${path}.homePage`, 'must be an IRL')
  if (typeof value.name !== 'string') invalid(`${path}.name`, 'must be a string')
}

/** An Agent: objectType absent or "Agent", exactly one inverse functional identifier. */
export function checkAgent(value: unknown, path: string): asserts value is JsonObject {
  if (!isObject(value)) invalid(path, 'must be an Agent object')
  if ('objectType' in value && value.objectType !== 'Agent') {
    invalid(`${path}.objectType`, 'must be "Agent"')
  }
  onlyKeys(value, ['objectType', 'name', ...IFI_KEYS], path)
  if ('name' in value && typeof value.name !== 'string') invalid(`${path}.name`, 'must be a string')
  if (checkIfis(value, path) !== 1) {
    invalid(path, 'an Agent needs exactly one of mbox, mbox_sha1sum, openid, account')
  }
}

/** A Group: objectType "Group"; anonymous groups need members, identified ones one IFI. */
export function checkGroup(value: unknown, path: string): asserts value is JsonObject {
  if (!isObject(value)) invalid(path, 'must be a Group object')
  if (value.objectType !== 'Group') invalid(`${path}.objectType`, 'must be "Group"')
  onlyKeys(value, ['objectType', 'name', 'member', ...IFI_KEYS], path)
  if ('name' in value && typeof value.name !== 'string') invalid(`${path}.name`, 'must be a string')
  const ifis = checkIfis(value, path)
  if (ifis > 1) invalid(path, 'a Group has at most one inverse functional identifier')
  if ('member' in value) {
    if (!Array.isArray(value.member)) invalid(`${path}.member`, 'must be an array')
    value.member.forEach((m, i) => {
      checkAgent(m, `${path}.member[${i}]`)
    })
  }
  if (ifis === 0 && !(Array.isArray(value.member) && value.member.length > 0)) {
    invalid(path, 'an anonymous Group needs members')
  }
}

export function checkActor(value: unknown, path: string): asserts value is JsonObject {
  if (isObject(value) && value.objectType === 'Group') checkGroup(value, path)
  else checkAgent(value, path)
}

/**
 * The key that identifies an agent or identified group across requests: its IFI in one
 * canonical string. Null for an anonymous group.
 */
export function agentKey(value: JsonObject): string | null {
  if (typeof value.mbox === 'string') return `mbox:${value.mbox}`
  if (typeof value.mbox_sha1sum === 'string') {
    return `mbox_sha1sum:${value.mbox_sha1sum.toLowerCase()}`
  }
  if (typeof value.openid === 'string') return `openid:${value.openid}`
  if (isObject(value.account)) {
    return `account:${String(value.account.homePage)}|${String(value.account.name)}`
  }
  return null
}

/** The agent (or identified group) named by a query parameter such as `?agent=`. */
export function parseAgentParam(raw: string | undefined, name: string): JsonObject {
  if (raw === undefined) invalid(name, 'is required')
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    invalid(name, 'must be an Agent as JSON')
  }
  checkActor(value, name)
  if (!agentKey(value)) invalid(name, 'must have an inverse functional identifier')
  return value
}
