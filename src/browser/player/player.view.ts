/**
 * The player's DOM: a top bar (contents button, course title, save status), the contents list
 * (a sidebar on wide screens, a drawer on phones), the stage holding the SCO frame or a message
 * screen, and the previous/continue bar. Text only ever goes in through textContent.
 */
import type { NavItem } from './navigator.ts'

export interface ViewHandlers {
  previous(): void
  next(): void
  choose(id: string): void
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
  /** "Part 2 of 5". */
  readonly position: string
}

export interface PlayerView {
  setCourse(title: string, items: readonly NavItem[], choice: boolean): void
  setCurrent(id: string | undefined): void
  setControls(state: ControlsState): void
  /** Hides the contents and the controls for good (end screen, single-item courses). */
  setChrome(visible: { toc: boolean; controls: boolean }): void
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
}

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
  bar.append(menu, title, save)

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
  const narrow = doc.defaultView?.matchMedia?.('(max-width: 799px)')

  const setTocOpen = (open: boolean) => {
    root.dataset.toc = open ? 'open' : 'closed'
    menu.setAttribute('aria-expanded', String(open))
  }
  // The drawer starts closed on phones; the sidebar starts open on wide screens.
  setTocOpen(!narrow?.matches)
  menu.addEventListener('click', () => setTocOpen(root.dataset.toc !== 'open'))
  backdrop.addEventListener('click', () => setTocOpen(false))
  doc.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && narrow?.matches && root.dataset.toc === 'open') {
      setTocOpen(false)
      menu.focus()
    }
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
      for (const item of items) {
        const li = el('li', 'cp-toc-item')
        li.style.setProperty('--level', String(Math.max(0, Math.min(item.level, 8))))
        if (!item.launchable) {
          li.classList.add('cp-toc-heading-item')
          li.append(el('span', 'cp-toc-label', item.title))
        } else if (choice) {
          const b = el('button', 'cp-toc-link', item.title)
          b.type = 'button'
          b.addEventListener('click', () => {
            if (narrow?.matches) setTocOpen(false)
            handlers.choose(item.id)
          })
          li.append(b)
          tocButtons.set(item.id, b)
        } else {
          const span = el('span', 'cp-toc-label', item.title)
          li.append(span)
          tocButtons.set(item.id, span)
        }
        tocList.append(li)
      }
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
      position.textContent = state.position
    },
    setChrome(visible) {
      // Shown again: back to the default for the screen size (sidebar open, drawer closed).
      if (visible.toc && toc.hidden) setTocOpen(!narrow?.matches)
      menu.hidden = !visible.toc
      toc.hidden = !visible.toc
      backdrop.hidden = !visible.toc
      controls.hidden = !visible.controls
      root.dataset.chrome = visible.toc ? 'full' : 'bare'
      if (!visible.toc) setTocOpen(false)
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
    setSaveStatus(text, tone = 'info') {
      save.textContent = text
      save.dataset.tone = tone
    },
  }
}
