import {
  createSafeXmlParser,
  decodeEntities,
  parseSafeXml,
  UnsafeXmlError,
} from '../../../shared/safe-xml.policy.ts'
import { canonicalName } from './xml-namespaces.ts'

/** An element whose name and attribute names use canonical prefixes (see xml-namespaces.ts). */
export interface XmlElement {
  readonly name: string
  readonly attrs: Readonly<Record<string, string>>
  readonly children: readonly XmlNode[]
}
export type XmlNode = XmlElement | string

/** Why a part could not be parsed; the caller turns it into a user-facing rejection. */
export class XmlError extends Error {
  readonly kind: 'doctype' | 'malformed' | 'too_deep'
  constructor(kind: XmlError['kind'], message: string) {
    super(message)
    this.name = 'XmlError'
    this.kind = kind
  }
}

/** The safe-XML policy's parser (src/shared/safe-xml.policy.ts), as for package manifests. */
const parser = createSafeXmlParser()

/** Decodes UTF-8 or UTF-16 (by BOM or by the first `<`), as OPC allows both. */
export function decodeXmlBytes(bytes: Buffer): string {
  const [b0, b1] = [bytes[0], bytes[1]]
  if (b0 === 0xff && b1 === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2))
  if (b0 === 0xfe && b1 === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2))
  if (b0 === 0x3c && b1 === 0x00) return new TextDecoder('utf-16le').decode(bytes)
  if (b0 === 0x00 && b1 === 0x3c) return new TextDecoder('utf-16be').decode(bytes)
  return new TextDecoder('utf-8').decode(bytes) // strips a UTF-8 BOM
}

/**
 * Parses one part into a namespace-resolved tree under the safe-XML policy (DOCTYPE/ENTITY
 * refused, no entity expansion, nesting bounded), refuses malformed XML, and resolves
 * `mc:AlternateContent` to its Fallback (else its first Choice), which is what a consumer that
 * does not implement the Choice's extensions must do.
 */
export function parseXml(source: string): XmlElement {
  // Whitespace before the XML declaration is technically malformed but harmless; allow it.
  const text = source.trimStart()
  let raw: unknown
  try {
    raw = parseSafeXml(text, parser)
  } catch (err) {
    if (!(err instanceof UnsafeXmlError)) throw err
    const kind = err.reason === 'too_many_elements' ? 'too_deep' : err.reason
    const where = err.line === null ? '' : ` (line ${err.line})`
    throw new XmlError(kind, `${err.message}${where}`)
  }
  const roots = convertList(raw, new Map()).filter((n): n is XmlElement => typeof n !== 'string')
  const root = roots[0]
  if (!root || roots.length !== 1) throw new XmlError('malformed', 'expected one root element')
  return root
}

type Scope = ReadonlyMap<string, string>

/** Recursive, to the policy's depth at most (the parser refuses deeper documents). */
function convertList(raw: unknown, scope: Scope): XmlNode[] {
  if (!Array.isArray(raw)) return []
  const out: XmlNode[] = []
  for (const item of raw) {
    if (item === null || typeof item !== 'object') continue
    const record = item as Record<string, unknown>
    for (const key of Object.keys(record)) {
      if (key === ':@') continue
      const value = record[key]
      if (key === '#text') out.push(decodeEntities(String(value)))
      else if (key === '#cdata') out.push(cdataText(value))
      else out.push(...convertElement(key, value, record[':@'], scope))
    }
  }
  return out
}

function convertElement(
  rawName: string,
  rawChildren: unknown,
  rawAttrs: unknown,
  parentScope: Scope,
): XmlNode[] {
  const attrEntries =
    rawAttrs && typeof rawAttrs === 'object'
      ? Object.entries(rawAttrs as Record<string, unknown>)
      : []
  let scope = parentScope
  for (const [k, v] of attrEntries) {
    if (k === 'xmlns' || k.startsWith('xmlns:')) {
      if (scope === parentScope) scope = new Map(parentScope)
      ;(scope as Map<string, string>).set(
        k === 'xmlns' ? '' : k.slice(6),
        decodeEntities(String(v)),
      )
    }
  }
  const name = canonicalName(rawName, scope, true)
  const attrs: Record<string, string> = {}
  for (const [k, v] of attrEntries) {
    if (k === 'xmlns' || k.startsWith('xmlns:')) continue
    attrs[canonicalName(k, scope, false)] = decodeEntities(String(v))
  }
  let children = convertList(rawChildren, scope)
  if (name === 'mc:AlternateContent') return chooseAlternative(children)
  if (children.some((c) => typeof c !== 'string')) {
    children = children.filter((c) => typeof c !== 'string' || c.trim() !== '')
  }
  return [{ name, attrs, children }]
}

function chooseAlternative(branches: readonly XmlNode[]): XmlNode[] {
  const elements = branches.filter((b): b is XmlElement => typeof b !== 'string')
  const fallback = elements.find((b) => b.name === 'mc:Fallback')
  const choice = elements.find((b) => b.name === 'mc:Choice')
  const chosen = fallback ?? choice
  return chosen ? [...chosen.children] : []
}

function cdataText(value: unknown): string {
  if (!Array.isArray(value)) return ''
  return value.map((v) => String((v as Record<string, unknown>)['#text'] ?? '')).join('')
}
