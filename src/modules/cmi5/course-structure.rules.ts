import { attr, type XmlElement } from '../scorm/manifest/xml.reader.ts'

/**
 * Element order of the cmi5 CourseStructure.xsd sequences (names not listed, such as extension
 * elements of other namespaces, are ignored).
 */
const SEQUENCES: Record<string, readonly string[]> = {
  course: ['title', 'description'],
  au: ['title', 'description', 'objectives', 'url', 'launchParameters', 'entitlementKey'],
  block: ['title', 'description', 'objectives'],
}

function orderProblem(el: XmlElement): string | null {
  const sequence = SEQUENCES[el.name]
  if (!sequence) return null
  let at = 0
  for (const child of el.children) {
    const index = sequence.indexOf(child.name)
    if (index < 0) continue
    if (index < at) {
      return `<${child.name}> comes after <${sequence[at]}> in the <${el.name}> '${attr(el, 'id') ?? ''}', against the cmi5 course structure schema (13.2.0.0-1).`
    }
    at = index
  }
  return null
}

/** §13.1.4: an AU's URL is a URL: no white space inside, and absolute ones must parse. */
function urlProblem(au: XmlElement): string | null {
  const url = au.children.find((c) => c.name === 'url')?.text.trim() ?? ''
  if (url === '') return null
  const absolute = /^[a-z][a-z0-9+.-]*:/i.test(url)
  if (/\s/.test(url) || (absolute && !URL.canParse(url))) {
    return `The URL '${url}' of the AU '${attr(au, 'id') ?? ''}' is not a valid URL (13.1.4.0-2).`
  }
  return null
}

/**
 * Rules of a cmi5 course structure beyond what the reader checks: ids unique across the course,
 * blocks, AUs and objectives (§13.1.2.0-1), valid AU URLs, and the schema's element order.
 * Returns the problems found, in document order; empty when there are none.
 */
export function courseStructureProblems(root: XmlElement): string[] {
  const problems: string[] = []
  const seen = new Set<string>()
  const visit = (el: XmlElement) => {
    const id = attr(el, 'id')
    const identified = ['course', 'block', 'au', 'objective'].includes(el.name)
    if (identified && id !== undefined) {
      if (seen.has(id)) problems.push(`The id '${id}' is used twice (13.1.2.0-1).`)
      seen.add(id)
    }
    const order = orderProblem(el)
    if (order) problems.push(order)
    if (el.name === 'au') {
      const url = urlProblem(el)
      if (url) problems.push(url)
    }
    for (const child of el.children) visit(child)
  }
  visit(root)
  return problems
}
