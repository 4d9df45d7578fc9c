import type { Block, ListItem } from './course.types.ts'
import { parseInline } from './inline-markdown.parser.ts'
import { cleanText } from './text.escape.ts'

const BULLET = /^([ \t]*)- (.*)$/

/** Two spaces per level; a tab counts as two spaces. */
function indentWidth(indent: string): number {
  let width = 0
  for (const c of indent) width += c === '\t' ? 2 : 1
  return width
}

/**
 * Parses quick-publish slide content into blocks:
 *
 * - lines starting with `- ` are bullets, nested by two spaces of indentation per level (deeper
 *   jumps are flattened to one level below the previous bullet); an indented line under a bullet
 *   continues it on a new line;
 * - other lines form paragraphs; blank lines separate paragraphs and end lists; line breaks
 *   inside a paragraph are kept;
 * - inline `**bold**`, `*italic*` and `[label](https://…)` (see parseInline).
 *
 * Everything else, HTML included, is literal text: escaping happens when the slide is rendered.
 */
export function parseSlideMarkdown(content: string): Block[] {
  const blocks: Block[] = []
  let paragraph: string[] = []
  let items: { level: number; lines: string[] }[] = []

  const endParagraph = () => {
    if (paragraph.length > 0)
      blocks.push({ kind: 'paragraph', runs: parseInline(paragraph.join('\n')) })
    paragraph = []
  }
  const endList = () => {
    if (items.length > 0) {
      const list: ListItem[] = items.map((i) => ({
        level: i.level,
        runs: parseInline(i.lines.join('\n')),
      }))
      blocks.push({ kind: 'list', items: list })
    }
    items = []
  }

  for (const line of cleanText(content).split('\n')) {
    const trimmed = line.trim()
    if (trimmed === '') {
      endParagraph()
      endList()
      continue
    }
    const bullet = BULLET.exec(line)
    const text = bullet?.[2]?.trim()
    if (bullet && text) {
      endParagraph()
      const previous = items[items.length - 1]
      const wanted = Math.floor(indentWidth(bullet[1] ?? '') / 2)
      const level = Math.min(wanted, previous ? previous.level + 1 : 0)
      items.push({ level, lines: [text] })
      continue
    }
    const last = items[items.length - 1]
    if (last && /^[ \t]{2,}/.test(line)) {
      last.lines.push(trimmed)
      continue
    }
    endList()
    paragraph.push(trimmed)
  }
  endParagraph()
  endList()
  return blocks
}
