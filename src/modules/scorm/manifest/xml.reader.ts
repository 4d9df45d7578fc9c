import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { AppError } from '../../../shared/app-error.ts'

/** An XML element with its namespace resolved, as the manifest parsers walk it. */
export interface XmlElement {
  /** Local name, without prefix. */
  name: string
  prefix: string
  /** Namespace URI, or null when the prefix is undeclared (common in hand-made manifests). */
  ns: string | null
  attributes: XmlAttribute[]
  children: XmlElement[]
  /** Direct text content (entities decoded, CDATA kept literally), not trimmed. */
  text: string
}

export interface XmlAttribute {
  name: string
  prefix: string
  value: string
}

export interface XmlDocument {
  root: XmlElement
  /** Every namespace URI declared anywhere in the document (used for version detection). */
  namespaces: Set<string>
}

const XML_NS = 'http://www.w3.org/XML/1998/namespace'

/** Deepest element nesting accepted; real manifests stay far below. */
const MAX_DEPTH = 100

function invalid(file: string, message: string, details?: unknown): AppError {
  return new AppError('invalid_package', `${file}: ${message}`, details)
}

/**
 * Refuses DOCTYPE and ENTITY declarations before anything parses the text: no manifest needs
 * them, and they are how entity-expansion ("billion laughs") and external-entity attacks work.
 * A linear scan that skips comments and CDATA, so a mention inside a comment is harmless.
 */
export function assertNoDoctype(text: string, file: string): void {
  let at = text.indexOf('<!')
  while (at !== -1) {
    if (text.startsWith('<!--', at)) {
      const end = text.indexOf('-->', at + 4)
      if (end === -1) return
      at = text.indexOf('<!', end + 3)
      continue
    }
    if (text.startsWith('<![CDATA[', at)) {
      const end = text.indexOf(']]>', at + 9)
      if (end === -1) return
      at = text.indexOf('<!', end + 3)
      continue
    }
    const word = text.slice(at + 2, at + 9).toUpperCase()
    if (word.startsWith('DOCTYPE') || word.startsWith('ENTITY')) {
      throw invalid(
        file,
        'the file contains a DOCTYPE or ENTITY declaration, which is not allowed in a package manifest. Remove the <!DOCTYPE ...> line.',
      )
    }
    at = text.indexOf('<!', at + 2)
  }
}

/**
 * Decodes the five predefined entities and character references. The parser's own entity
 * support is off, so nothing user-defined can ever expand (there is no DTD to define any).
 */
export function decodeEntities(value: string): string {
  if (!value.includes('&')) return value
  return value.replace(
    /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|(amp|lt|gt|quot|apos));/g,
    (whole, dec: string | undefined, hex: string | undefined, named: string | undefined) => {
      if (named) return NAMED[named] ?? whole
      const code = dec ? Number.parseInt(dec, 10) : Number.parseInt(hex ?? '', 16)
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) || code === 0) return whole
      return String.fromCodePoint(code)
    },
  )
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

/** Decodes manifest bytes: BOM first, then the XML declaration's encoding, else UTF-8. */
export function decodeXmlBytes(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes)
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes)
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 200))
  const declared = /^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1]
  if (declared && !/^utf-?8$/i.test(declared)) {
    try {
      return new TextDecoder(declared).decode(bytes)
    } catch {
      // Unknown label: fall through to UTF-8, which is what most tools really write.
    }
  }
  return new TextDecoder('utf-8').decode(bytes)
}

type FxpNode = Record<string, unknown>

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  allowBooleanAttributes: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  cdataPropName: '#cdata',
  removeNSPrefix: false,
  maxNestedTags: MAX_DEPTH,
})

function splitName(qname: string): { prefix: string; name: string } {
  const colon = qname.indexOf(':')
  return colon === -1
    ? { prefix: '', name: qname }
    : { prefix: qname.slice(0, colon), name: qname.slice(colon + 1) }
}

/** Cheap linear test for "at least one element start"; the parse below decides for real. */
function hasContent(text: string): boolean {
  return /<[^?!]/.test(text)
}

/**
 * Parses `text` safely (DOCTYPE refused, no entity expansion, nesting bounded) into an element
 * tree with namespaces resolved. `file` names the document in error messages.
 */
export function parseXmlDocument(text: string, file: string): XmlDocument {
  assertNoDoctype(text, file)
  if (!hasContent(text)) {
    throw invalid(file, 'the file is empty (it holds no XML element).')
  }
  const verdict = XMLValidator.validate(text, { allowBooleanAttributes: true })
  if (verdict !== true) {
    const { msg, line } = verdict.err
    throw invalid(file, `the file is not well-formed XML (line ${line}: ${msg}).`, {
      line,
      detail: msg,
    })
  }
  let nodes: FxpNode[]
  try {
    nodes = parser.parse(text) as FxpNode[]
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err)
    const reason = /nested/i.test(detail)
      ? `its elements are nested too deeply (more than ${MAX_DEPTH} levels)`
      : detail.replace(/^\[[A-Z]+\]\s*/, '')
    throw invalid(file, `the XML could not be read: ${reason}.`, { detail })
  }
  const namespaces = new Set<string>()
  const scope = new Map<string, string>([['xml', XML_NS]])
  const roots = convertChildren(nodes, scope, namespaces)
  const root = roots[0]
  if (!root) throw invalid(file, 'the file is empty (it holds no XML element).')
  return { root, namespaces }
}

function convertChildren(
  nodes: FxpNode[],
  scope: Map<string, string>,
  namespaces: Set<string>,
): XmlElement[] {
  const out: XmlElement[] = []
  for (const node of nodes) {
    const key = Object.keys(node).find((k) => k !== ':@')
    if (!key || key === '#text' || key === '#cdata') continue
    out.push(convertElement(key, node, scope, namespaces))
  }
  return out
}

function convertElement(
  qname: string,
  node: FxpNode,
  parentScope: Map<string, string>,
  namespaces: Set<string>,
): XmlElement {
  const rawAttributes = (node[':@'] ?? {}) as Record<string, unknown>
  let scope = parentScope
  const attributes: XmlAttribute[] = []
  for (const [key, raw] of Object.entries(rawAttributes)) {
    const value = decodeEntities(typeof raw === 'string' ? raw : '')
    if (key === 'xmlns' || key.startsWith('xmlns:')) {
      if (scope === parentScope) scope = new Map(parentScope)
      scope.set(key === 'xmlns' ? '' : key.slice(6), value)
      if (value) namespaces.add(value)
      continue
    }
    attributes.push({ ...splitName(key), value })
  }
  const { prefix, name } = splitName(qname)
  const content = (node[qname] ?? []) as FxpNode[]
  let text = ''
  for (const part of content) {
    if (typeof part['#text'] === 'string') text += decodeEntities(part['#text'])
    const cdata = part['#cdata']
    if (Array.isArray(cdata)) {
      for (const c of cdata as FxpNode[]) if (typeof c['#text'] === 'string') text += c['#text']
    }
  }
  return {
    name,
    prefix,
    ns: scope.get(prefix) ?? null,
    attributes,
    children: convertChildren(content, scope, namespaces),
    text,
  }
}

// ---- helpers used by the manifest parsers -------------------------------------------------

/** Children with local name `name`; `ci` matches case-insensitively (sloppy authoring tools). */
export function childrenNamed(el: XmlElement, name: string, ci = false): XmlElement[] {
  if (!ci) return el.children.filter((c) => c.name === name)
  const lower = name.toLowerCase()
  return el.children.filter((c) => c.name.toLowerCase() === lower)
}

export function childNamed(el: XmlElement, name: string, ci = false): XmlElement | undefined {
  return childrenNamed(el, name, ci)[0]
}

/**
 * Attribute by local name (any prefix except `xml`), optionally case-insensitive, trimmed:
 * identifiers are XML IDs, where surrounding spaces do not count (ADL's own test packages pad
 * some on purpose).
 */
export function attr(el: XmlElement, name: string, ci = false): string | undefined {
  const lower = name.toLowerCase()
  const found = el.attributes.find(
    (a) => a.prefix !== 'xml' && (ci ? a.name.toLowerCase() === lower : a.name === name),
  )
  return found?.value.trim()
}

/** `xml:base` of an element, if any. */
export function xmlBase(el: XmlElement): string | undefined {
  return el.attributes.find((a) => a.prefix === 'xml' && a.name === 'base')?.value
}

/** Text with whitespace runs collapsed, as titles are shown. */
export function cleanText(value: string | undefined): string {
  return (value ?? '').replace(/\s+/g, ' ').trim()
}

/** True when the element belongs to a namespace whose URI (or, if undeclared, prefix) has `hint`. */
export function inNamespace(el: XmlElement, hint: string): boolean {
  return el.ns ? el.ns.toLowerCase().includes(hint) : el.prefix.toLowerCase() === hint
}
