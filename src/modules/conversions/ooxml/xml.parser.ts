import { XMLParser, XMLValidator } from 'fast-xml-parser'
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

/** Deeper nesting than this does not occur in real decks; refusing it bounds recursion. */
const MAX_DEPTH = 256

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  // Entities are decoded here (five predefined + numeric), never from a DTD.
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  cdataPropName: '#cdata',
})

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
 * Parses one part into a namespace-resolved tree. Refuses DOCTYPE/ENTITY outright (no entity
 * expansion, no external fetches), refuses malformed XML, and resolves `mc:AlternateContent` to
 * its Fallback (else its first Choice), which is what a consumer that does not implement the
 * Choice's extensions must do.
 */
export function parseXml(source: string): XmlElement {
  // Whitespace before the XML declaration is technically malformed but harmless; allow it.
  const text = source.trimStart()
  if (/<!DOCTYPE/i.test(text) || /<!ENTITY/i.test(text)) {
    throw new XmlError('doctype', 'DOCTYPE and ENTITY declarations are not allowed')
  }
  const valid = XMLValidator.validate(text)
  if (valid !== true) throw new XmlError('malformed', `${valid.err.msg} (line ${valid.err.line})`)
  const raw: unknown = parser.parse(text)
  const roots = convertList(raw, new Map(), 0).filter((n): n is XmlElement => typeof n !== 'string')
  const root = roots[0]
  if (!root || roots.length !== 1) throw new XmlError('malformed', 'expected one root element')
  return root
}

type Scope = ReadonlyMap<string, string>

function convertList(raw: unknown, scope: Scope, depth: number): XmlNode[] {
  if (depth > MAX_DEPTH) throw new XmlError('too_deep', 'elements are nested too deeply')
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
      else out.push(...convertElement(key, value, record[':@'], scope, depth))
    }
  }
  return out
}

function convertElement(
  rawName: string,
  rawChildren: unknown,
  rawAttrs: unknown,
  parentScope: Scope,
  depth: number,
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
  let children = convertList(rawChildren, scope, depth + 1)
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

const ENTITY = /&(?:#x([0-9a-fA-F]{1,8})|#([0-9]{1,10})|(lt|gt|amp|quot|apos));/g
const NAMED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }

export function decodeEntities(s: string): string {
  if (!s.includes('&')) return s
  return s.replace(ENTITY, (_m, hex: string | undefined, dec: string | undefined, named) => {
    if (named) return NAMED[named] ?? ''
    const code = hex !== undefined ? Number.parseInt(hex, 16) : Number.parseInt(dec ?? '', 10)
    const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
    return valid ? String.fromCodePoint(code) : '\uFFFD'
  })
}
