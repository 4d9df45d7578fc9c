import type {
  TextRun as OoxmlRun,
  Paragraph,
  SlideContent,
} from '../../conversions/ooxml/presentation.types.ts'
import type { Block, ListItem, TextRun } from './course.types.ts'
import { safeLinkUrl } from './text.escape.ts'

function runsOf(runs: readonly OoxmlRun[]): TextRun[] {
  const out: TextRun[] = []
  for (const r of runs) {
    if (r.text === '') continue
    const link = r.link?.type === 'url' ? safeLinkUrl(r.link.url) : null
    const last = out[out.length - 1]
    if (
      last &&
      !!last.bold === r.bold &&
      !!last.italic === r.italic &&
      (last.link ?? null) === link
    ) {
      last.text += r.text
      continue
    }
    const run: TextRun = { text: r.text }
    if (r.bold) run.bold = true
    if (r.italic) run.italic = true
    if (link) run.link = link
    out.push(run)
  }
  return out
}

const isBlank = (p: Paragraph) => p.text.trim() === ''

/**
 * Bulleted paragraphs in a row become one list (levels re-based so the shallowest is 0);
 * the others become paragraphs. Empty paragraphs are spacing in PowerPoint, not content.
 */
function paragraphBlocks(paragraphs: readonly Paragraph[], allBullets: boolean): Block[] {
  const blocks: Block[] = []
  let pending: Paragraph[] = []
  const endList = () => {
    if (pending.length === 0) return
    const base = Math.min(...pending.map((p) => p.level))
    const items: ListItem[] = pending.map((p) => ({ level: p.level - base, runs: runsOf(p.runs) }))
    blocks.push({ kind: 'list', items })
    pending = []
  }
  for (const p of paragraphs) {
    if (isBlank(p)) continue
    if (p.bullet || allBullets) {
      pending.push(p)
      continue
    }
    endList()
    blocks.push({ kind: 'paragraph', runs: runsOf(p.runs) })
  }
  endList()
  return blocks
}

/**
 * Maps one slide read by the OOXML reader onto the generator's blocks, in reading order. The
 * title placeholder is left out (it becomes the slide heading: use `slide.navigationTitle`) and
 * so are footers, dates and slide numbers. SmartArt nodes become a list. Only http(s) links are
 * kept; links to slides, files, macros or other schemes keep their text without the link.
 */
export function blocksFromOoxmlSlide(slide: Pick<SlideContent, 'blocks'>): Block[] {
  const out: Block[] = []
  for (const block of slide.blocks) {
    switch (block.kind) {
      case 'text':
        if (block.role === 'title' || block.role === 'footer') break
        out.push(...paragraphBlocks(block.paragraphs, false))
        break
      case 'smartart':
        out.push(...paragraphBlocks(block.paragraphs, true))
        break
      case 'table': {
        const rows = block.rows.filter((row) => row.some((cell) => cell.trim() !== ''))
        if (rows.length > 0) out.push({ kind: 'table', rows: rows.map((row) => [...row]) })
        break
      }
    }
  }
  return out
}
