import type { Block, ListItem, TextRun } from './course.types.ts'
import { escapeHtml, safeLinkUrl, textHtml } from './text.escape.ts'

/**
 * Links open in a new tab: navigating the course frame away would end the SCO's session inside
 * the LMS. The link is checked again here, since blocks may come straight from an API caller.
 */
function runHtml(run: TextRun): string {
  let html = textHtml(run.text)
  if (run.italic) html = `<em>${html}</em>`
  if (run.bold) html = `<strong>${html}</strong>`
  const href = run.link ? safeLinkUrl(run.link) : null
  if (href) {
    html = `<a href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer">${html}<span class="visually-hidden"> (opens in a new tab)</span></a>`
  }
  return html
}

export function runsHtml(runs: readonly TextRun[]): string {
  return runs.map(runHtml).join('')
}

/** Nested `<ul>`s from flat items with levels; a jump of several levels opens only one. */
function listHtml(items: readonly ListItem[]): string {
  let html = ''
  let depth = -1
  for (const item of items) {
    const level = Math.max(0, Math.min(Math.floor(item.level) || 0, depth + 1))
    if (level > depth) html += '<ul><li>'
    else {
      html += '</li>'
      for (; depth > level; depth--) html += '</ul></li>'
      html += '<li>'
    }
    depth = level
    html += runsHtml(item.runs)
  }
  if (depth < 0) return ''
  html += '</li>'
  for (; depth > 0; depth--) html += '</ul></li>'
  return `${html}</ul>`
}

function tableHtml(rows: readonly string[][], header: boolean, label: string): string {
  const width = Math.max(...rows.map((r) => r.length))
  const cells = (row: readonly string[], tag: 'th' | 'td') =>
    Array.from({ length: width }, (_, i) => {
      const scope = tag === 'th' ? ' scope="col"' : ''
      return `<${tag}${scope}>${textHtml(row[i] ?? '')}</${tag}>`
    }).join('')
  const [first, ...rest] = rows
  const head = header && first ? `<thead><tr>${cells(first, 'th')}</tr></thead>` : ''
  const body = (header ? rest : rows).map((r) => `<tr>${cells(r, 'td')}</tr>`).join('')
  // Focusable so keyboard users can scroll a table wider than a phone screen.
  return `<div class="table-wrap" role="region" tabindex="0" aria-label="${escapeHtml(label)}"><table>${head}<tbody>${body}</tbody></table></div>`
}

/** The HTML of a slide's text blocks; everything from the input is escaped. */
export function blocksHtml(blocks: readonly Block[], slideNumber: number): string {
  let tables = 0
  const out: string[] = []
  for (const block of blocks) {
    switch (block.kind) {
      case 'paragraph': {
        const html = runsHtml(block.runs)
        if (html.trim() !== '') out.push(`<p>${html}</p>`)
        break
      }
      case 'list':
        out.push(listHtml(block.items))
        break
      case 'table':
        if (block.rows.length === 0) break
        tables++
        out.push(
          tableHtml(block.rows, block.header === true, `Slide ${slideNumber}, table ${tables}`),
        )
        break
    }
  }
  return out.filter((h) => h !== '').join('\n')
}

/** Plain text of blocks, for course.json (search). */
export function blocksText(blocks: readonly Block[]): string {
  const runs = (r: readonly TextRun[]) => r.map((x) => x.text).join('')
  const textOf = (b: Block): string => {
    if (b.kind === 'paragraph') return runs(b.runs)
    if (b.kind === 'list')
      return b.items.map((i) => `${'  '.repeat(Math.max(0, i.level))}- ${runs(i.runs)}`).join('\n')
    return b.rows.map((r) => r.join('\t')).join('\n')
  }
  return blocks
    .map(textOf)
    .filter((t) => t.trim() !== '')
    .join('\n\n')
}
