import { XMLParser, XMLValidator } from 'fast-xml-parser'

/**
 * The one policy for untrusted XML: package manifests (imsmanifest.xml, cmi5.xml, tincan.xml) and
 * OOXML parts of uploaded presentations both parse through here.
 *
 * - DOCTYPE and ENTITY declarations are refused before any parser sees the text: no manifest or
 *   Office part needs them, and they are how entity-expansion ("billion laughs") and
 *   external-entity attacks work. Mentions inside comments and CDATA are harmless and pass.
 * - The parser's entity support is off; only the five predefined entities and character
 *   references are decoded ({@link decodeEntities}), so nothing user-defined ever expands.
 * - Elements nest at most {@link SAFE_XML_MAX_DEPTH} levels (bounds every recursive walk).
 * - A caller may cap the number of elements (`maxElements`), counted by a linear scan before the
 *   parse, so a huge document is refused before its tree takes memory.
 */

/** Deepest element nesting accepted: 100. Real manifests stay under 20, slide parts under 40. */
export const SAFE_XML_MAX_DEPTH = 100

export type UnsafeXmlReason = 'doctype' | 'too_deep' | 'too_many_elements' | 'malformed'

/** Why a document was refused; each caller words it for its users. */
export class UnsafeXmlError extends Error {
  readonly reason: UnsafeXmlReason
  /** The line of a well-formedness error, when known. */
  readonly line: number | null
  /** The limit that was exceeded (`too_deep`, `too_many_elements`). */
  readonly limit: number | null
  constructor(
    reason: UnsafeXmlReason,
    message: string,
    extra: { line?: number; limit?: number } = {},
  ) {
    super(message)
    this.name = 'UnsafeXmlError'
    this.reason = reason
    this.line = extra.line ?? null
    this.limit = extra.limit ?? null
  }
}

/** What a linear scan of the text found, before any parse. */
export interface XmlScan {
  /** A DOCTYPE or ENTITY declaration outside comments and CDATA. */
  doctype: boolean
  /** Element start tags. */
  elements: number
  /** Start tags per local name (prefix dropped), e.g. `item` → 60 000. */
  byLocalName: Map<string, number>
}

const NAME_END = /[\s/>]/

/**
 * One pass over the text, skipping comments, CDATA and processing instructions: finds DOCTYPE or
 * ENTITY declarations and counts element start tags (per local name). Memory stays O(distinct
 * names) whatever the size of the text.
 */
export function scanXml(text: string): XmlScan {
  const scan: XmlScan = { doctype: false, elements: 0, byLocalName: new Map() }
  let at = text.indexOf('<')
  while (at !== -1) {
    const next = text[at + 1]
    if (text.startsWith('<!--', at)) {
      at = skipPast(text, '-->', at + 4)
    } else if (text.startsWith('<![CDATA[', at)) {
      at = skipPast(text, ']]>', at + 9)
    } else if (next === '!') {
      const word = text.slice(at + 2, at + 9).toUpperCase()
      if (word.startsWith('DOCTYPE') || word.startsWith('ENTITY')) scan.doctype = true
      at += 2
    } else if (next === '?') {
      at = skipPast(text, '?>', at + 2)
    } else {
      if (next !== '/' && next !== undefined) countElement(text, at + 1, scan)
      at += 1
    }
    if (at === -1) break
    at = text.indexOf('<', at)
  }
  return scan
}

function skipPast(text: string, end: string, from: number): number {
  const found = text.indexOf(end, from)
  return found === -1 ? -1 : found + end.length
}

function countElement(text: string, from: number, scan: XmlScan): void {
  let end = from
  while (end < text.length && end - from < 200 && !NAME_END.test(text[end] ?? '>')) end++
  const qname = text.slice(from, end)
  const local = qname.slice(qname.indexOf(':') + 1)
  scan.elements += 1
  scan.byLocalName.set(local, (scan.byLocalName.get(local) ?? 0) + 1)
}

export interface SafeXmlParserOptions {
  /** Accept attributes without a value (`<x checked>`), as sloppy authoring tools write. */
  allowBooleanAttributes?: boolean
}

/** A parser with the policy's settings (ordered nodes, attributes unprefixed, text untouched). */
export function createSafeXmlParser(options: SafeXmlParserOptions = {}): SafeXmlParser {
  const allowBooleanAttributes = options.allowBooleanAttributes ?? false
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '',
    allowBooleanAttributes,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    processEntities: false,
    htmlEntities: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    cdataPropName: '#cdata',
    removeNSPrefix: false,
    // fast-xml-parser refuses only above maxNestedTags + 1 levels.
    maxNestedTags: SAFE_XML_MAX_DEPTH - 1,
  })
  return { parser, allowBooleanAttributes }
}

export interface SafeXmlParser {
  readonly parser: XMLParser
  readonly allowBooleanAttributes: boolean
}

export interface SafeXmlLimits {
  /** Most element start tags; checked before parsing. Default: no cap. */
  maxElements?: number
  /** Runs after the scan, before the parse: for the caller's own counts (manifest items…). */
  beforeParse?: (scan: XmlScan) => void
}

/**
 * Checks `text` against the policy, then parses it into fast-xml-parser's ordered nodes. Throws
 * {@link UnsafeXmlError} (or whatever `beforeParse` throws).
 */
export function parseSafeXml(
  text: string,
  safe: SafeXmlParser,
  limits: SafeXmlLimits = {},
): unknown[] {
  const scan = scanXml(text)
  if (scan.doctype) {
    throw new UnsafeXmlError('doctype', 'DOCTYPE and ENTITY declarations are not allowed')
  }
  // The caller's own counts first: they name the more specific limit.
  limits.beforeParse?.(scan)
  if (limits.maxElements !== undefined && scan.elements > limits.maxElements) {
    throw new UnsafeXmlError(
      'too_many_elements',
      `${scan.elements} elements, more than the ${limits.maxElements} allowed`,
      { limit: limits.maxElements },
    )
  }
  const verdict = XMLValidator.validate(text, {
    allowBooleanAttributes: safe.allowBooleanAttributes,
  })
  if (verdict !== true) {
    const { msg, line } = verdict.err
    throw new UnsafeXmlError('malformed', msg, { line })
  }
  try {
    return safe.parser.parse(text) as unknown[]
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err)
    if (/nested/i.test(detail)) {
      throw new UnsafeXmlError(
        'too_deep',
        `elements are nested too deeply (more than ${SAFE_XML_MAX_DEPTH} levels)`,
        { limit: SAFE_XML_MAX_DEPTH },
      )
    }
    throw new UnsafeXmlError('malformed', detail.replace(/^\[[A-Z]+\]\s*/, ''))
  }
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

/**
 * Decodes the five predefined entities and character references; anything else (an undefined
 * entity, a reference to NUL or a surrogate) is left as written, never expanded.
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
