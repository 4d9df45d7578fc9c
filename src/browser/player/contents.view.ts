/**
 * The contents: a sidebar on wide screens, a drawer on phones (with its button for the top bar
 * and a backdrop), listing the items with their marks — from the start answer's items, or as
 * the server's sequencer gives them.
 */
import type { NavItem } from './navigator.ts'
import type { ContentsEntry } from './sequencer.navigator.ts'
import type { MakeElement } from './view.element.ts'

/** What the contents show next to an item; never colour alone (a glyph and words too). */
export type ItemMark = 'completed' | 'passed' | 'failed' | 'visited' | 'none'

export interface ItemState {
  readonly mark: ItemMark
  /** Prerequisites not met: shown, but cannot be opened. */
  readonly locked: boolean
}

const MARKS: Record<ItemMark, { glyph: string; words: string }> = {
  completed: { glyph: '✓', words: 'completed' },
  passed: { glyph: '✓', words: 'passed' },
  failed: { glyph: '✕', words: 'not passed' },
  visited: { glyph: '◐', words: 'visited' },
  none: { glyph: '', words: '' },
}

export interface ContentsView {
  /** The top bar's button that opens and closes the drawer. */
  readonly button: HTMLElement
  /** The list and the backdrop behind the drawer, in that order. */
  readonly elements: readonly HTMLElement[]
  setItems(items: readonly NavItem[], choice: boolean): void
  setItemState(id: string, state: ItemState): void
  setEntries(entries: readonly ContentsEntry[]): void
  setItemMark(id: string, mark: ItemMark): void
  setCurrent(id: string | undefined): void
  /** Shown again: back to the default for the screen size (sidebar open, drawer closed). */
  setShown(shown: boolean): void
  /** Escape on a phone: closes an open drawer and gives focus back to its button. */
  closeDrawer(): void
}

interface Entry {
  readonly li: HTMLElement
  readonly mark: HTMLElement
  readonly words: HTMLElement
}

export function createContentsView(
  root: HTMLElement,
  el: MakeElement,
  choose: (id: string) => void,
): ContentsView {
  const doc = root.ownerDocument
  const menu = el('button', 'cp-menu')
  menu.type = 'button'
  menu.setAttribute('aria-controls', 'cp-toc')
  menu.setAttribute('aria-expanded', 'false')
  menu.append(el('span', 'cp-menu-icon'), el('span', 'cp-menu-label', 'Contents'))
  const toc = el('nav', 'cp-toc')
  toc.id = 'cp-toc'
  toc.setAttribute('aria-label', 'Contents')
  const tocList = el('ol', 'cp-toc-list')
  toc.append(el('h2', 'cp-toc-heading', 'Contents'), tocList)
  const backdrop = el('div', 'cp-backdrop')
  const tocButtons = new Map<string, HTMLElement>()
  const tocEntries = new Map<string, Entry>()
  const narrow = doc.defaultView?.matchMedia?.('(max-width: 799px)')

  const setTocOpen = (open: boolean) => {
    root.dataset.toc = open ? 'open' : 'closed'
    menu.setAttribute('aria-expanded', String(open))
  }
  // The drawer starts closed on phones; the sidebar starts open on wide screens, and a window
  // narrowed to phone width (or rotated) closes it rather than leave a drawer over the SCO.
  setTocOpen(!narrow?.matches)
  narrow?.addEventListener?.('change', (e) => setTocOpen(!e.matches && !toc.hidden))
  menu.addEventListener('click', () => setTocOpen(root.dataset.toc !== 'open'))
  backdrop.addEventListener('click', () => setTocOpen(false))

  /** A new list item at `level`; a heading when `heading` is set (shown, never picked). */
  const listItem = (level: number, title: string, heading: boolean) => {
    const li = el('li', 'cp-toc-item')
    li.style.setProperty('--level', String(Math.max(0, Math.min(level, 8))))
    if (heading) {
      li.classList.add('cp-toc-heading-item')
      li.append(el('span', 'cp-toc-label', title))
    }
    tocList.append(li)
    return li
  }
  const pick = (id: string) => {
    if (narrow?.matches) setTocOpen(false)
    choose(id)
  }
  const clear = () => {
    tocList.replaceChildren()
    tocButtons.clear()
    tocEntries.clear()
  }
  const register = (id: string, node: HTMLElement, entry: Entry) => {
    tocButtons.set(id, node)
    tocEntries.set(id, entry)
  }

  return {
    button: menu,
    elements: [toc, backdrop],
    setItems(items, choice) {
      clear()
      for (const { item, level } of shownItems(items)) {
        const li = listItem(level, item.title, !item.launchable)
        if (!item.launchable) continue
        const node = choice ? el('button', 'cp-toc-link') : el('span', 'cp-toc-label')
        const mark = el('span', 'cp-toc-mark')
        mark.setAttribute('aria-hidden', 'true')
        const words = el('span', 'cp-sr')
        node.append(mark, el('span', 'cp-toc-text', item.title), words)
        if (node instanceof HTMLButtonElement) {
          node.type = 'button'
          node.addEventListener('click', () => pick(item.id))
        }
        li.append(node)
        register(item.id, node, { li, mark, words })
      }
    },
    setItemState(id, state) {
      const entry = tocEntries.get(id)
      const node = tocButtons.get(id)
      if (!entry || !node) return
      const m = MARKS[state.mark]
      entry.li.dataset.mark = state.mark
      entry.li.dataset.locked = String(state.locked)
      entry.mark.textContent = state.locked ? '' : m.glyph
      const said = [state.locked ? 'locked until earlier parts are done' : m.words]
      entry.words.textContent = said[0] ? `, ${said[0]}` : ''
      if (node instanceof HTMLButtonElement) node.disabled = state.locked
    },
    setEntries(entries) {
      // A keyboard user inside the contents keeps their place: focus goes to the new current entry.
      const hadFocus = tocList.contains(doc.activeElement)
      clear()
      for (const entry of entries) {
        // A cluster that cannot be picked is a heading, as in a course without sequencing.
        const heading = entry.cluster && !entry.selectable
        const li = listItem(entry.level, entry.title, heading)
        li.dataset.mark = entry.mark
        if (heading) continue
        const node = el('button', 'cp-toc-link')
        node.type = 'button'
        const m = MARKS[entry.mark]
        const mark = el('span', 'cp-toc-mark', m.glyph)
        mark.setAttribute('aria-hidden', 'true')
        const closed = !(entry.selectable || entry.current)
        const words = el('span', 'cp-sr', spoken(m.words, closed))
        node.append(mark, el('span', 'cp-toc-text', entry.title), words)
        node.disabled = !entry.selectable
        if (entry.current) node.setAttribute('aria-current', 'step')
        node.addEventListener('click', () => pick(entry.id))
        li.append(node)
        register(entry.id, node, { li, mark, words })
      }
      if (hadFocus) tocList.querySelector<HTMLElement>('[aria-current="step"]')?.focus()
    },
    setItemMark(id, mark) {
      const entry = tocEntries.get(id)
      const node = tocButtons.get(id)
      if (!entry || !node) return
      const m = MARKS[mark]
      entry.li.dataset.mark = mark
      entry.mark.textContent = m.glyph
      const closed =
        node instanceof HTMLButtonElement && node.disabled && !node.hasAttribute('aria-current')
      entry.words.textContent = spoken(m.words, closed)
    },
    setCurrent(id) {
      for (const [itemId, node] of tocButtons) {
        if (itemId === id) node.setAttribute('aria-current', 'step')
        else node.removeAttribute('aria-current')
      }
    },
    setShown(shown) {
      if (shown && toc.hidden) setTocOpen(!narrow?.matches)
      menu.hidden = !shown
      toc.hidden = !shown
      backdrop.hidden = !shown
      if (!shown) setTocOpen(false)
    },
    closeDrawer() {
      if (narrow?.matches && root.dataset.toc === 'open') {
        setTocOpen(false)
        menu.focus()
      }
    },
  }
}

/** What a screen reader hears after an entry's title: its mark, and whether it can be picked. */
function spoken(markWords: string, closed: boolean): string {
  return [markWords, closed ? 'not available now' : '']
    .filter(Boolean)
    .map((w) => `, ${w}`)
    .join('')
}

/**
 * The items the contents show, with the level to draw them at: `visible: false` items are left
 * out, and the children of a hidden heading take its place instead of hanging under nothing.
 */
function shownItems(items: readonly NavItem[]): Array<{ item: NavItem; level: number }> {
  const out: Array<{ item: NavItem; level: number }> = []
  // Levels of the hidden ancestors of the current item (a stack, as the list is in tree order).
  const hidden: number[] = []
  for (const item of items) {
    while (hidden.length > 0 && (hidden.at(-1) as number) >= item.level) hidden.pop()
    if (item.visible === false) {
      hidden.push(item.level)
      continue
    }
    out.push({ item, level: item.level - hidden.length })
  }
  return out
}
