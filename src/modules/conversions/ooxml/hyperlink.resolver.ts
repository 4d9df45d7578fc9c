import { type Relationships, relTypeIs } from './opc.parts.ts'
import type { LinkTarget } from './presentation.types.ts'
import type { XmlElement } from './xml.parser.ts'
import { attr } from './xml-tree.query.ts'

export interface LinkContext {
  rels: Relationships
  /** 1-based presentation position of a slide part, or null when the deck does not show it. */
  slideNumberOf(partName: string): number | null
}

const JUMPS = new Set([
  'firstslide',
  'lastslide',
  'nextslide',
  'previousslide',
  'lastslideviewed',
  'endshow',
] as const)
type Jump = typeof JUMPS extends Set<infer J> ? J : never

/**
 * Interprets `a:hlinkClick` (on a run or a shape). Returns null for things that are not links to
 * anywhere: media play buttons, OLE activation, "no action", empty ids. External targets are
 * classified, never fetched.
 */
export function resolveHyperlink(hlink: XmlElement, ctx: LinkContext): LinkTarget | null {
  const action = attr(hlink, 'action') ?? ''
  const relId = attr(hlink, 'r:id') ?? ''
  const rel = relId ? ctx.rels.get(relId) : undefined
  if (action) {
    const body = action.replace(/^ppaction:\/\//i, '')
    const q = body.indexOf('?')
    const verb = (q === -1 ? body : body.slice(0, q)).toLowerCase()
    const query = q === -1 ? '' : body.slice(q + 1)
    switch (verb) {
      case 'hlinksldjump':
        return { type: 'slide', slideIndex: rel?.partName ? ctx.slideNumberOf(rel.partName) : null }
      case 'hlinkshowjump': {
        const jump = new URLSearchParams(query).get('jump')?.toLowerCase() ?? ''
        return isJump(jump)
          ? { type: 'navigation', jump }
          : { type: 'unsupported', action: 'showjump', detail: jump || null }
      }
      case 'hlinkfile':
      case 'hlinkpres':
        return rel ? { type: 'file', path: rel.target } : null
      case 'program':
        return { type: 'unsupported', action: 'program', detail: rel?.target ?? null }
      case 'macro':
        return {
          type: 'unsupported',
          action: 'macro',
          detail: new URLSearchParams(query).get('name'),
        }
      case 'customshow':
        return { type: 'unsupported', action: 'customshow', detail: null }
      case 'media':
      case 'noaction':
      case 'ole':
        return null
      default:
        if (!action.toLowerCase().startsWith('ppaction:')) break
        return { type: 'unsupported', action: verb, detail: null }
    }
  }
  if (!rel) return null
  if (rel.external) return classifyExternal(rel.target)
  if (relTypeIs(rel, 'slide') && rel.partName) {
    return { type: 'slide', slideIndex: ctx.slideNumberOf(rel.partName) }
  }
  return null
}

function isJump(s: string): s is Jump {
  return (JUMPS as Set<string>).has(s)
}

/** Web links stay links; paths on the author's machine and script schemes do not. */
export function classifyExternal(target: string): LinkTarget {
  const t = target.trim()
  if (/^(https?|mailto|ftp|tel):/i.test(t)) return { type: 'url', url: t }
  if (/^file:/i.test(t) || /^\\\\/.test(t) || /^[a-z]:[\\/]/i.test(t))
    return { type: 'file', path: t }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(t)
  if (!scheme) return { type: 'file', path: t }
  return { type: 'unsupported', action: 'url', detail: `${scheme[1]?.toLowerCase()}:` }
}
