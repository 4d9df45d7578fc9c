/**
 * The player's DOM: a top bar (contents button, course title, save status, Exit), the contents
 * list (a sidebar on wide screens, a drawer on phones), the stage holding the SCO frame or a
 * message screen, and the previous/continue bar. Text only ever goes in through textContent.
 */
import type { NavItem } from './navigator.ts'
import type { ContentsEntry } from './sequencer.navigator.ts'

export interface ViewHandlers {
  previous(): void
  next(): void
  choose(id: string): void
  exit(): void
  /** One of the leave menu's actions (SCORM 2004 under the sequencer, see setLeaveMenu). */
  leave?(id: LeaveId): void
}

/** The ways out a sequenced course offers: Exit (this activity), Suspend All, Exit All. */
export type LeaveId = 'exit' | 'suspendAll' | 'exitAll'

export interface LeaveAction {
  readonly id: LeaveId
  readonly enabled: boolean
  readonly hidden: boolean
}

/** What each way out is called; the menu lists them in this order. */
const LEAVE_LABELS: Record<LeaveId, string> = {
  exit: 'Exit this part',
  suspendAll: 'Save and exit',
  exitAll: 'Exit course',
}

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

export interface ScreenAction {
  readonly label: string
  readonly run: () => void
  readonly primary?: boolean
}

export interface Message {
  readonly title: string
  readonly text?: string
  readonly actions?: readonly ScreenAction[]
  /** A spinner, for waits. */
  readonly busy?: boolean
}

export interface ControlsState {
  readonly canPrevious: boolean
  readonly canNext: boolean
  /** Not drawn at all (the sequencer's hideLMSUI). Default false. */
  readonly hidePrevious?: boolean
  readonly hideNext?: boolean
  /** "Part 2 of 5". */
  readonly position: string
  /** A move is under way (shown as `data-busy` on the root, for styles and tests). */
  readonly busy?: boolean
}

export interface PlayerView {
  /** Items with `visible: false` are left out; a hidden heading's children move up a level. */
  setCourse(title: string, items: readonly NavItem[], choice: boolean): void
  setCurrent(id: string | undefined): void
  setItemState(id: string, state: ItemState): void
  /**
   * The contents as the sequencer gives them (SCORM 2004 under the server's sequencer): replaces
   * setCourse's list; selectable entries are buttons, the others are shown but cannot be picked.
   */
  setContents(entries: readonly ContentsEntry[]): void
  /**
   * Turns the top bar's Exit into a menu of these ways out (hidden ones left out, disabled ones
   * greyed); the Exit button itself is hidden when none is shown. Undefined: a plain Exit.
   */
  setLeaveMenu(actions: readonly LeaveAction[] | undefined): void
  /** Changes only the mark of a setContents entry (the SCO reported a status meanwhile). */
  setItemMark(id: string, mark: ItemMark): void
  setControls(state: ControlsState): void
  /**
   * Shows or hides the contents, the previous/continue bar, the top bar (default: shown with the
   * contents) and its Exit button (default: with the top bar).
   */
  setChrome(visible: { toc: boolean; controls: boolean; bar?: boolean; exit?: boolean }): void
  /** Replaces the SCO frame's document with about:blank, as a browser unloads a page. */
  unloadFrame(timeoutMs: number): Promise<void>
  /** Replaces any SCO frame with a new one loading `src`. */
  showFrame(src: string, title: string): HTMLIFrameElement
  /** Removes the SCO frame; its document unloads synchronously. */
  removeFrame(): void
  /** A full-stage message (loading, error, end); hides the frame without unloading it. */
  showScreen(message: Message): void
  /** A banner over the bottom of the stage; the SCO stays visible. */
  showNotice(message: Message): void
  clearMessages(): void
  setSaveStatus(text: string, tone?: 'info' | 'warning'): void
  /** "Course complete" next to the title, announced once (the server's status says so). */
  setCourseComplete(complete: boolean): void
}

// Long on purpose: the view is one closure over its DOM nodes; each handler it returns is short.
export function createPlayerView(root: HTMLElement, handlers: ViewHandlers): PlayerView {
  const doc = root.ownerDocument
  const el = <K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string) => {
    const node = doc.createElement(tag)
    if (className) node.className = className
    if (text !== undefined) node.textContent = text
    return node
  }

  root.replaceChildren()
  root.classList.add('cp-app')
  const bar = el('header', 'cp-bar')
  const menu = el('button', 'cp-menu')
  menu.type = 'button'
  menu.setAttribute('aria-controls', 'cp-toc')
  menu.setAttribute('aria-expanded', 'false')
  menu.append(el('span', 'cp-menu-icon'), el('span', 'cp-menu-label', 'Contents'))
  const title = el('h1', 'cp-title')
  const save = el('p', 'cp-save')
  save.setAttribute('role', 'status')
  const courseState = el('p', 'cp-course-state')
  courseState.setAttribute('role', 'status')
  const exit = el('button', 'cp-exit', 'Exit')
  exit.type = 'button'
  const leaveMenu = el('div', 'cp-leave')
  leaveMenu.id = 'cp-leave'
  leaveMenu.setAttribute('role', 'group')
  leaveMenu.setAttribute('aria-label', 'Leave')
  leaveMenu.hidden = true
  let leaveActions: readonly LeaveAction[] | undefined
  const setLeaveOpen = (open: boolean) => {
    leaveMenu.hidden = !open
    if (leaveActions) exit.setAttribute('aria-expanded', String(open))
  }
  exit.addEventListener('click', () => {
    if (!leaveActions) return handlers.exit()
    setLeaveOpen(leaveMenu.hidden === true)
    if (!leaveMenu.hidden) leaveMenu.querySelector<HTMLButtonElement>('button:enabled')?.focus()
  })
  const leaveWrap = el('div', 'cp-leave-wrap')
  leaveWrap.append(exit, leaveMenu)
  bar.append(menu, title, courseState, save, leaveWrap)

  const body = el('div', 'cp-body')
  const toc = el('nav', 'cp-toc')
  toc.id = 'cp-toc'
  toc.setAttribute('aria-label', 'Contents')
  const tocList = el('ol', 'cp-toc-list')
  toc.append(el('h2', 'cp-toc-heading', 'Contents'), tocList)
  const backdrop = el('div', 'cp-backdrop')
  const stage = el('main', 'cp-stage')
  const screen = el('section', 'cp-screen')
  screen.setAttribute('aria-live', 'polite')
  screen.hidden = true
  const notice = el('section', 'cp-notice')
  notice.setAttribute('aria-live', 'polite')
  notice.hidden = true
  stage.append(screen, notice)
  body.append(toc, backdrop, stage)

  const controls = el('nav', 'cp-controls')
  controls.setAttribute('aria-label', 'Course navigation')
  const prev = el('button', 'cp-nav cp-prev', 'Previous')
  const position = el('span', 'cp-position')
  const next = el('button', 'cp-nav cp-next', 'Continue')
  prev.type = 'button'
  next.type = 'button'
  controls.append(prev, position, next)
  root.append(bar, body, controls)

  let frame: HTMLIFrameElement | undefined
  const tocButtons = new Map<string, HTMLElement>()
  const tocEntries = new Map<string, { li: HTMLElement; mark: HTMLElement; words: HTMLElement }>()
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
  doc.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !leaveMenu.hidden) {
      setLeaveOpen(false)
      exit.focus()
      return
    }
    if (e.key === 'Escape' && narrow?.matches && root.dataset.toc === 'open') {
      setTocOpen(false)
      menu.focus()
    }
  })
  // A click anywhere else closes the leave menu, as a menu does.
  doc.addEventListener('click', (e) => {
    if (!leaveMenu.hidden && !leaveWrap.contains(e.target as Node)) setLeaveOpen(false)
  })
  prev.addEventListener('click', () => handlers.previous())
  next.addEventListener('click', () => handlers.next())

  const renderMessage = (target: HTMLElement, m: Message) => {
    target.replaceChildren()
    if (m.busy) target.append(el('div', 'cp-spinner'))
    target.append(el('h2', 'cp-message-title', m.title))
    if (m.text) target.append(el('p', 'cp-message-text', m.text))
    if (m.actions?.length) {
      const row = el('div', 'cp-actions')
      for (const a of m.actions) {
        const b = el('button', a.primary ? 'cp-action cp-primary' : 'cp-action', a.label)
        b.type = 'button'
        b.addEventListener('click', () => a.run())
        row.append(b)
      }
      target.append(row)
    }
    target.hidden = false
  }

  return {
    setCourse(courseTitle, items, choice) {
      title.textContent = courseTitle
      doc.title = courseTitle
      tocList.replaceChildren()
      tocButtons.clear()
      tocEntries.clear()
      for (const { item, level } of shownItems(items)) {
        const li = el('li', 'cp-toc-item')
        li.style.setProperty('--level', String(Math.max(0, Math.min(level, 8))))
        if (!item.launchable) {
          li.classList.add('cp-toc-heading-item')
          li.append(el('span', 'cp-toc-label', item.title))
          tocList.append(li)
          continue
        }
        const node = choice ? el('button', 'cp-toc-link') : el('span', 'cp-toc-label')
        const mark = el('span', 'cp-toc-mark')
        mark.setAttribute('aria-hidden', 'true')
        const words = el('span', 'cp-sr')
        node.append(mark, el('span', 'cp-toc-text', item.title), words)
        if (node instanceof HTMLButtonElement) {
          node.type = 'button'
          node.addEventListener('click', () => {
            if (narrow?.matches) setTocOpen(false)
            handlers.choose(item.id)
          })
        }
        li.append(node)
        tocButtons.set(item.id, node)
        tocEntries.set(item.id, { li, mark, words })
        tocList.append(li)
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
    setContents(entries) {
      // A keyboard user inside the contents keeps their place: focus goes to the new current entry.
      const hadFocus = tocList.contains(doc.activeElement)
      tocList.replaceChildren()
      tocButtons.clear()
      tocEntries.clear()
      for (const entry of entries) {
        const li = el('li', 'cp-toc-item')
        li.style.setProperty('--level', String(Math.max(0, Math.min(entry.level, 8))))
        li.dataset.mark = entry.mark
        // A cluster that cannot be picked is a heading, as in a course without sequencing.
        if (entry.cluster && !entry.selectable) {
          li.classList.add('cp-toc-heading-item')
          li.append(el('span', 'cp-toc-label', entry.title))
          tocList.append(li)
          continue
        }
        const node = el('button', 'cp-toc-link')
        node.type = 'button'
        const m = MARKS[entry.mark]
        const mark = el('span', 'cp-toc-mark', m.glyph)
        mark.setAttribute('aria-hidden', 'true')
        const said = [m.words, entry.selectable || entry.current ? '' : 'not available now']
        const words = el(
          'span',
          'cp-sr',
          said
            .filter(Boolean)
            .map((w) => `, ${w}`)
            .join(''),
        )
        node.append(mark, el('span', 'cp-toc-text', entry.title), words)
        node.disabled = !entry.selectable
        if (entry.current) node.setAttribute('aria-current', 'step')
        node.addEventListener('click', () => {
          if (narrow?.matches) setTocOpen(false)
          handlers.choose(entry.id)
        })
        li.append(node)
        tocButtons.set(entry.id, node)
        tocEntries.set(entry.id, { li, mark, words })
        tocList.append(li)
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
      const said = [m.words, closed ? 'not available now' : '']
      entry.words.textContent = said
        .filter(Boolean)
        .map((w) => `, ${w}`)
        .join('')
    },
    setLeaveMenu(actions) {
      leaveActions = actions
      leaveMenu.replaceChildren()
      if (!actions) {
        exit.removeAttribute('aria-expanded')
        exit.removeAttribute('aria-controls')
        exit.dataset.menu = 'false'
        setLeaveOpen(false)
        return
      }
      exit.setAttribute('aria-controls', leaveMenu.id)
      exit.setAttribute('aria-expanded', String(!leaveMenu.hidden))
      exit.dataset.menu = 'true'
      const shown = (['exit', 'suspendAll', 'exitAll'] as const)
        .map((id) => actions.find((a) => a.id === id))
        .filter((a): a is LeaveAction => a !== undefined && !a.hidden)
      for (const a of shown) {
        const b = el('button', 'cp-leave-action', LEAVE_LABELS[a.id])
        b.type = 'button'
        b.disabled = !a.enabled
        b.dataset.leave = a.id
        b.addEventListener('click', () => {
          setLeaveOpen(false)
          handlers.leave?.(a.id)
        })
        leaveMenu.append(b)
      }
      exit.dataset.none = String(shown.length === 0)
      if (shown.length === 0) setLeaveOpen(false)
    },
    setCurrent(id) {
      for (const [itemId, node] of tocButtons) {
        if (itemId === id) node.setAttribute('aria-current', 'step')
        else node.removeAttribute('aria-current')
      }
    },
    setControls(state) {
      prev.disabled = !state.canPrevious
      next.disabled = !state.canNext
      prev.hidden = state.hidePrevious === true
      next.hidden = state.hideNext === true
      position.textContent = state.position
      root.dataset.busy = String(state.busy === true)
    },
    setChrome(visible) {
      // Shown again: back to the default for the screen size (sidebar open, drawer closed).
      if (visible.toc && toc.hidden) setTocOpen(!narrow?.matches)
      const showBar = visible.bar ?? visible.toc
      menu.hidden = !visible.toc
      toc.hidden = !visible.toc
      backdrop.hidden = !visible.toc
      controls.hidden = !visible.controls
      exit.hidden = !(visible.exit ?? showBar)
      if (exit.hidden) setLeaveOpen(false)
      // Without a bar the SCO fills the viewport; a save warning still brings the bar back.
      root.dataset.chrome = showBar ? 'full' : 'bare'
      if (!visible.toc) setTocOpen(false)
    },
    unloadFrame(timeoutMs) {
      const current = frame
      if (!current?.contentWindow) return Promise.resolve()
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer)
          current.removeEventListener('load', done)
          resolve()
        }
        // A beforeunload prompt the learner answers "stay", or a SCO that hangs in unload.
        const timer = setTimeout(done, timeoutMs)
        current.addEventListener('load', done)
        // A navigation, not a removal: the SCO's document gets beforeunload, pagehide and unload
        // exactly as when a tab closes, so content that Terminates in onbeforeunload still does.
        current.contentWindow?.location.replace('about:blank')
      })
    },
    showFrame(src, frameTitle) {
      frame?.remove()
      frame = el('iframe', 'cp-frame')
      frame.title = frameTitle
      frame.setAttribute('allow', 'fullscreen; autoplay; encrypted-media; picture-in-picture')
      frame.src = src
      stage.prepend(frame)
      return frame
    },
    removeFrame() {
      frame?.remove()
      frame = undefined
    },
    showScreen(m) {
      notice.hidden = true
      renderMessage(screen, m)
      if (frame) frame.hidden = true
      screen.querySelector<HTMLButtonElement>('.cp-primary')?.focus()
    },
    showNotice(m) {
      screen.hidden = true
      if (frame) frame.hidden = false
      renderMessage(notice, m)
    },
    clearMessages() {
      screen.hidden = true
      notice.hidden = true
      if (frame) frame.hidden = false
    },
    setCourseComplete(complete) {
      courseState.textContent = complete ? '✓ Course complete' : ''
    },
    setSaveStatus(text, tone = 'info') {
      save.textContent = text
      save.dataset.tone = tone
      if (text) root.dataset.save = tone
      else delete root.dataset.save
    },
  }
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
