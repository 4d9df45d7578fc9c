/**
 * Namespace URIs mapped to the prefixes this module's code is written against. Transitional and
 * ISO/IEC 29500 Strict URIs map to the same prefix, so the rest of the reader never sees the
 * difference, and a document that binds unusual prefixes still reads the same.
 */
const CANONICAL: ReadonlyMap<string, string> = new Map([
  ['http://schemas.openxmlformats.org/presentationml/2006/main', 'p'],
  ['http://purl.oclc.org/ooxml/presentationml/main', 'p'],
  ['http://schemas.openxmlformats.org/drawingml/2006/main', 'a'],
  ['http://purl.oclc.org/ooxml/drawingml/main', 'a'],
  ['http://schemas.openxmlformats.org/officeDocument/2006/relationships', 'r'],
  ['http://purl.oclc.org/ooxml/officeDocument/relationships', 'r'],
  ['http://schemas.openxmlformats.org/drawingml/2006/picture', 'pic'],
  ['http://purl.oclc.org/ooxml/drawingml/picture', 'pic'],
  ['http://schemas.openxmlformats.org/drawingml/2006/chart', 'c'],
  ['http://purl.oclc.org/ooxml/drawingml/chart', 'c'],
  ['http://schemas.openxmlformats.org/drawingml/2006/diagram', 'dgm'],
  ['http://purl.oclc.org/ooxml/drawingml/diagram', 'dgm'],
  ['http://schemas.openxmlformats.org/officeDocument/2006/extended-properties', 'ep'],
  ['http://purl.oclc.org/ooxml/officeDocument/extendedProperties', 'ep'],
  ['http://schemas.openxmlformats.org/markup-compatibility/2006', 'mc'],
  ['http://schemas.openxmlformats.org/package/2006/content-types', 'ct'],
  ['http://schemas.openxmlformats.org/package/2006/relationships', 'rel'],
  ['http://schemas.openxmlformats.org/package/2006/metadata/core-properties', 'cp'],
  ['http://purl.org/dc/elements/1.1/', 'dc'],
  ['http://purl.org/dc/terms/', 'dcterms'],
  ['http://schemas.microsoft.com/office/powerpoint/2010/main', 'p14'],
  ['http://schemas.microsoft.com/office/drawing/2010/main', 'a14'],
  ['http://schemas.microsoft.com/office/drawing/2016/SVG/main', 'asvg'],
  ['http://schemas.microsoft.com/office/drawing/2017/decorative', 'adec'],
  ['http://www.w3.org/XML/1998/namespace', 'xml'],
])

/**
 * `prefix:local` → `canonical:local` using the in-scope declarations. Unknown namespaces become
 * `{uri}local` so they can never collide with a canonical name; undeclared prefixes stay as
 * written. Unprefixed attributes are in no namespace, whatever the default namespace is.
 */
export function canonicalName(
  raw: string,
  scope: ReadonlyMap<string, string>,
  isElement: boolean,
): string {
  const colon = raw.indexOf(':')
  const prefix = colon === -1 ? '' : raw.slice(0, colon)
  const local = colon === -1 ? raw : raw.slice(colon + 1)
  if (prefix === 'xml') return `xml:${local}`
  if (prefix === '' && !isElement) return local
  const uri = scope.get(prefix)
  if (uri === undefined) return raw
  const canonical = CANONICAL.get(uri)
  if (canonical) return `${canonical}:${local}`
  return uri === '' ? local : `{${uri}}${local}`
}
