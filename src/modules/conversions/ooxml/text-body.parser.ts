import {
  bulletOf,
  type PlaceholderRef,
  type PlaceholderStyles,
} from './placeholder-styles.resolver.ts'
import type { LinkTarget, Paragraph, TextRun } from './presentation.types.ts'
import type { XmlElement } from './xml.parser.ts'
import { attr, child, childrenNamed, elements, intAttr, isOn, textOf } from './xml-tree.query.ts'

export interface TextContext {
  resolveLink(hlink: XmlElement): LinkTarget | null
  placeholder: PlaceholderRef | null
  styles: PlaceholderStyles
}

const BULLETED_PLACEHOLDERS = new Set(['body', 'obj'])

/**
 * Paragraphs of an `a:txBody`/`p:txBody` (also `dgm:t`, table cells, notes). Paragraphs with
 * no visible text are dropped. Bullets: the paragraph's own `a:buNone`/`a:buChar`/`a:buAutoNum`
 * wins, then the shape's list style, then the layout/master chain, then "bulleted if the
 * placeholder is body or obj".
 */
export function parseTextBody(txBody: XmlElement | undefined, ctx: TextContext): Paragraph[] {
  if (!txBody) return []
  const lstStyle = child(txBody, 'a:lstStyle')
  const out: Paragraph[] = []
  for (const p of childrenNamed(txBody, 'a:p')) {
    const pPr = child(p, 'a:pPr')
    const level = Math.min(Math.max(intAttr(pPr, 'lvl') ?? 0, 0), 8)
    const runs = parseRuns(p, ctx)
    const text = runs.map((r) => r.text).join('')
    if (text.trim() === '') continue
    const bullet =
      bulletOf(pPr) ??
      bulletOf(child(lstStyle, `a:lvl${level + 1}pPr`)) ??
      (ctx.placeholder ? ctx.styles.bulletFor(ctx.placeholder, level) : undefined) ??
      (ctx.placeholder !== null && BULLETED_PLACEHOLDERS.has(ctx.placeholder.type))
    out.push({ text, level, bullet, runs })
  }
  return out
}

function parseRuns(p: XmlElement, ctx: TextContext): TextRun[] {
  const runs: TextRun[] = []
  for (const el of elements(p)) {
    if (el.name === 'a:br') {
      runs.push({ text: '\n', bold: false, italic: false, link: null })
      continue
    }
    if (el.name !== 'a:r' && el.name !== 'a:fld') continue
    const text = clean(textOf(child(el, 'a:t')))
    if (text === '') continue
    const rPr = child(el, 'a:rPr')
    const hlink = child(rPr, 'a:hlinkClick')
    runs.push({
      text,
      bold: isOn(attr(rPr, 'b')),
      italic: isOn(attr(rPr, 'i')),
      link: hlink ? ctx.resolveLink(hlink) : null,
    })
  }
  return runs
}

/** Vertical tab is PowerPoint's soft line break; other C0 controls are never meaningful text. */
function clean(s: string): string {
  let out = ''
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 0x0b) out += '\n'
    else if (c >= 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) out += s[i]
  }
  return out
}

/** Paragraph texts joined as one line (for titles and navigation). */
export function oneLine(paragraphs: readonly Paragraph[]): string {
  return paragraphs
    .map((p) => p.text)
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim()
}
