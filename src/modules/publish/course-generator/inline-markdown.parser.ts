import type { TextRun } from './course.types.ts'
import { safeLinkUrl } from './text.escape.ts'

/**
 * Inline part of the quick-publish markdown subset: `**bold**`, `*italic*` (nesting and
 * `***both***` included, `\*` for a literal asterisk) and `[label](https://…)` links. Which `*`
 * open and close follows CommonMark's delimiter-run rules, so `2 * 3 * 4` and `a*b` stay literal
 * the way authors who know Markdown expect. A link whose URL is not http(s) stays literal text.
 */

type Token =
  | { type: 'text'; text: string }
  | { type: 'link'; label: string; url: string }
  | { type: 'stars'; delim: Delimiter }

interface Delimiter {
  length: number
  remaining: number
  canOpen: boolean
  canClose: boolean
  active: boolean
  /** Emphasis closed here, then emphasis opened here (inner first). */
  closes: Kind[]
  opens: Kind[]
}

type Kind = 'bold' | 'italic'

const LINK = /^\[([^\]\n]+)\]\(([^\s()]+)\)/

const isSpace = (c: string | undefined) => c === undefined || /\s/u.test(c)
const isPunct = (c: string | undefined) => c !== undefined && /[\p{P}\p{S}]/u.test(c)

function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  let buffer = ''
  const flush = () => {
    if (buffer) tokens.push({ type: 'text', text: buffer })
    buffer = ''
  }
  let i = 0
  while (i < text.length) {
    const c = text[i] as string
    if (c === '\\' && (text[i + 1] === '*' || text[i + 1] === '[')) {
      buffer += text[i + 1]
      i += 2
    } else if (c === '*') {
      let end = i
      while (text[end] === '*') end++
      const before = text[i - 1]
      const after = text[end]
      const left = !isSpace(after) && (!isPunct(after) || isSpace(before) || isPunct(before))
      const right = !isSpace(before) && (!isPunct(before) || isSpace(after) || isPunct(after))
      flush()
      const length = end - i
      tokens.push({
        type: 'stars',
        delim: {
          length,
          remaining: length,
          canOpen: left,
          canClose: right,
          active: true,
          closes: [],
          opens: [],
        },
      })
      i = end
    } else if (c === '[' && LINK.test(text.slice(i))) {
      const m = LINK.exec(text.slice(i)) as RegExpExecArray
      const url = safeLinkUrl(m[2] as string)
      if (url) {
        flush()
        tokens.push({ type: 'link', label: m[1] as string, url })
      } else buffer += m[0]
      i += m[0].length
    } else {
      buffer += c
      i++
    }
  }
  flush()
  return tokens
}

/** CommonMark "process emphasis", for `*` only. */
function matchEmphasis(delims: Delimiter[]): void {
  for (let ci = 0; ci < delims.length; ci++) {
    const closer = delims[ci] as Delimiter
    if (!closer.canClose || !closer.active) continue
    while (closer.remaining > 0) {
      let oi = ci - 1
      for (; oi >= 0; oi--) {
        const o = delims[oi] as Delimiter
        if (!o.active || !o.canOpen || o.remaining === 0) continue
        const oddMatch =
          (o.canClose || closer.canOpen) &&
          (o.length + closer.length) % 3 === 0 &&
          !(o.length % 3 === 0 && closer.length % 3 === 0)
        if (!oddMatch) break
      }
      if (oi < 0) break
      const opener = delims[oi] as Delimiter
      const use = opener.remaining >= 2 && closer.remaining >= 2 ? 2 : 1
      const kind: Kind = use === 2 ? 'bold' : 'italic'
      opener.remaining -= use
      closer.remaining -= use
      opener.opens.push(kind)
      closer.closes.push(kind)
      for (let k = oi + 1; k < ci; k++) (delims[k] as Delimiter).active = false
    }
  }
}

/** Parses one paragraph or list item; `\n` in `text` is kept as a line break. */
export function parseInline(text: string): TextRun[] {
  const tokens = tokenize(text)
  matchEmphasis(tokens.flatMap((t) => (t.type === 'stars' ? [t.delim] : [])))
  const runs: TextRun[] = []
  const depth = { bold: 0, italic: 0 }
  const push = (piece: string, link: string | null = null) => {
    if (!piece) return
    const run: TextRun = { text: piece }
    if (depth.bold > 0) run.bold = true
    if (depth.italic > 0) run.italic = true
    if (link) run.link = link
    const last = runs[runs.length - 1]
    if (last && !link && !last.link && !!last.bold === !!run.bold && !!last.italic === !!run.italic)
      last.text += piece
    else runs.push(run)
  }
  for (const token of tokens) {
    if (token.type === 'text') push(token.text)
    else if (token.type === 'link') push(token.label, token.url)
    else {
      const d = token.delim
      for (const kind of d.closes) depth[kind]--
      push('*'.repeat(d.remaining))
      for (const kind of d.opens) depth[kind]++
    }
  }
  return runs
}
