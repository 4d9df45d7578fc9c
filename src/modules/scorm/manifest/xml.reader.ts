import { AppError } from '../../../shared/app-error.ts'
import {
  createSafeXmlParser,
  decodeEntities,
  parseSafeXml,
  SAFE_XML_MAX_DEPTH,
  type SafeXmlLimits,
  scanXml,
  UnsafeXmlError,
} from '../../../shared/safe-xml.policy.ts'
import { MANIFEST_LIMITS } from './manifest-limits.ts'

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

function invalid(file: string, message: string, details?: unknown): AppError {
  return new AppError('invalid_package', `${file}: ${message}`, details)
}

/**
 * Refuses DOCTYPE and ENTITY declarations (outside comments and CDATA), as the safe-XML policy
 * (src/shared/safe-xml.policy.ts) does for every untrusted document.
 */
export function assertNoDoctype(text: string, file: string): void {
  if (scanXml(text).doctype) throw doctypeRefused(file)
}

function doctypeRefused(file: string): AppError {
  return invalid(
    file,
    'the file contains a DOCTYPE or ENTITY declaration, which is not allowed in a package manifest. Remove the <!DOCTYPE ...> line.',
  )
}

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

const parser = createSafeXmlParser({ allowBooleanAttributes: true })

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
 * Parses `text` under the safe-XML policy (DOCTYPE refused, no entity expansion, nesting and
 * element counts bounded: by default at `maxManifestElements`) into an element tree with
 * namespaces resolved. `file` names the document in error messages; what `limits.beforeParse`
 * throws passes through.
 */
export function parseXmlDocument(
  text: string,
  file: string,
  limits: SafeXmlLimits = { maxElements: MANIFEST_LIMITS.maxManifestElements },
): XmlDocument {
  if (!hasContent(text)) {
    if (scanXml(text).doctype) throw doctypeRefused(file)
    throw invalid(file, 'the file is empty (it holds no XML element).')
  }
  let nodes: FxpNode[]
  try {
    nodes = parseSafeXml(text, parser, limits) as FxpNode[]
  } catch (err) {
    if (err instanceof UnsafeXmlError) throw refusal(file, err)
    throw err
  }
  const namespaces = new Set<string>()
  const scope = new Map<string, string>([['xml', XML_NS]])
  const roots = convertChildren(nodes, scope, namespaces)
  const root = roots[0]
  if (!root) throw invalid(file, 'the file is empty (it holds no XML element).')
  return { root, namespaces }
}

function refusal(file: string, err: UnsafeXmlError): AppError {
  switch (err.reason) {
    case 'doctype':
      return doctypeRefused(file)
    case 'malformed':
      return err.line === null
        ? invalid(file, `the XML could not be read: ${err.message}.`, { detail: err.message })
        : invalid(file, `the file is not well-formed XML (line ${err.line}: ${err.message}).`, {
            line: err.line,
            detail: err.message,
          })
    case 'too_deep':
      return invalid(
        file,
        `the XML could not be read: its elements are nested too deeply (more than ${SAFE_XML_MAX_DEPTH} levels).`,
        { limit: 'xmlDepth', max: SAFE_XML_MAX_DEPTH },
      )
    case 'too_many_elements':
      return invalid(
        file,
        `the file has too many XML elements (${err.message}); the limit is maxManifestElements = ${err.limit}.`,
        { limit: 'maxManifestElements', max: err.limit },
      )
  }
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
