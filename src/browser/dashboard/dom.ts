/** Elements built from data with textContent only: no HTML string ever reaches the page. */
type Attrs = Record<string, string | boolean | undefined>
type Child = Node | string | null | undefined | false

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue
    el.setAttribute(name, value === true ? '' : value)
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    el.append(typeof child === 'string' ? document.createTextNode(child) : child)
  }
  return el
}

/**
 * A table in a focusable, labelled scroll region. Below 40rem each row becomes a card with the
 * column names beside the values (dashboard.css); the explicit roles keep it a table for
 * assistive technology when CSS changes its display.
 */
export function table(caption: string, head: string[], rows: (string | Node)[][]): HTMLElement {
  const body = rows.length
    ? rows.map((cells) =>
        h(
          'tr',
          { role: 'row' },
          ...cells.map((c, i) => h('td', { role: 'cell', 'data-label': head[i] }, c)),
        ),
      )
    : [
        h(
          'tr',
          { role: 'row' },
          h('td', { role: 'cell', colspan: String(head.length) }, 'Nothing yet.'),
        ),
      ]
  return h(
    'div',
    { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': caption },
    h(
      'table',
      { role: 'table' },
      h('caption', {}, caption),
      h(
        'thead',
        { role: 'rowgroup' },
        h(
          'tr',
          { role: 'row' },
          ...head.map((c) => h('th', { scope: 'col', role: 'columnheader' }, c)),
        ),
      ),
      h('tbody', { role: 'rowgroup' }, ...body),
    ),
  )
}

export function field(label: string, input: HTMLInputElement | HTMLSelectElement): HTMLElement {
  return h('label', { class: 'field' }, h('span', {}, label), input)
}

export function percent(value: number | null): string {
  return value === null ? '—' : `${Math.round(value * 1000) / 10} %`
}

export function duration(seconds: number): string {
  const s = Math.round(seconds)
  const m = Math.floor(s / 60)
  return m ? `${m} min ${s % 60} s` : `${s} s`
}
