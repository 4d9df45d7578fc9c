/**
 * The player's DOM: a top bar (contents button, course title, save status, Exit), the contents
 * list (a sidebar on wide screens, a drawer on phones), the stage holding the SCO frame or a
 * message screen, and the previous/continue bar. Each is its own view (`top-bar.view.ts`,
 * `contents.view.ts`, `stage.view.ts`, `controls.view.ts`); this one puts them together and
 * decides what is shown.
 */
import { createContentsView, type ItemMark, type ItemState } from './contents.view.ts'
import { type ControlsState, createControlsView } from './controls.view.ts'
import type { NavItem } from './navigator.ts'
import type { ContentsEntry } from './sequencer.navigator.ts'
import { createStageView, type Message } from './stage.view.ts'
import { createTopBarView, type LeaveAction, type LeaveId } from './top-bar.view.ts'
import { elementMaker } from './view.element.ts'

export interface ViewHandlers {
  previous(): void
  next(): void
  choose(id: string): void
  exit(): void
  /** One of the leave menu's actions (SCORM 2004 under the sequencer, see setLeaveMenu). */
  leave?(id: LeaveId): void
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

export function createPlayerView(root: HTMLElement, handlers: ViewHandlers): PlayerView {
  const doc = root.ownerDocument
  const el = elementMaker(doc)
  root.replaceChildren()
  root.classList.add('cp-app')
  const contents = createContentsView(root, el, (id) => handlers.choose(id))
  const bar = createTopBarView(root, el, contents.button, handlers)
  const stage = createStageView(el)
  const controls = createControlsView(root, el, handlers)
  const body = el('div', 'cp-body')
  body.append(...contents.elements, stage.element)
  root.append(bar.element, body, controls.element)
  doc.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape') return
    // One Escape closes one thing: the leave menu first, then the drawer.
    if (!bar.closeLeaveMenu()) contents.closeDrawer()
  })

  return {
    setCourse(courseTitle, items, choice) {
      bar.setTitle(courseTitle)
      contents.setItems(items, choice)
    },
    setCurrent: (id) => contents.setCurrent(id),
    setItemState: (id, state) => contents.setItemState(id, state),
    setContents: (entries) => contents.setEntries(entries),
    setItemMark: (id, mark) => contents.setItemMark(id, mark),
    setLeaveMenu: (actions) => bar.setLeaveMenu(actions),
    setControls: (state) => controls.setControls(state),
    setChrome(visible) {
      const showBar = visible.bar ?? visible.toc
      contents.setShown(visible.toc)
      controls.element.hidden = !visible.controls
      bar.setExitShown(visible.exit ?? showBar)
      // Without a bar the SCO fills the viewport; a save warning still brings the bar back.
      root.dataset.chrome = showBar ? 'full' : 'bare'
    },
    unloadFrame: (timeoutMs) => stage.unloadFrame(timeoutMs),
    showFrame: (src, frameTitle) => stage.showFrame(src, frameTitle),
    removeFrame: () => stage.removeFrame(),
    showScreen: (m) => stage.showScreen(m),
    showNotice: (m) => stage.showNotice(m),
    clearMessages: () => stage.clearMessages(),
    setCourseComplete: (complete) => bar.setCourseComplete(complete),
    setSaveStatus: (text, tone) => bar.setSaveStatus(text, tone),
  }
}
