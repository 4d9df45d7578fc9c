/**
 * The top bar: the contents button (made by the contents view), the course title, "Course
 * complete", the save status and Exit — a plain button, or under the sequencer a disclosure menu
 * of the ways out.
 */
import type { MakeElement } from './view.element.ts'

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

export interface TopBarView {
  readonly element: HTMLElement
  /** The bar's title and the document's. */
  setTitle(title: string): void
  setCourseComplete(complete: boolean): void
  setSaveStatus(text: string, tone?: 'info' | 'warning'): void
  setLeaveMenu(actions: readonly LeaveAction[] | undefined): void
  /** Shows or hides Exit; hiding it closes its menu. */
  setExitShown(shown: boolean): void
  /** Closes an open leave menu and gives focus back to Exit; false when it was not open. */
  closeLeaveMenu(): boolean
}

export function createTopBarView(
  root: HTMLElement,
  el: MakeElement,
  contentsButton: HTMLElement,
  handlers: { exit(): void; leave?(id: LeaveId): void },
): TopBarView {
  const doc = root.ownerDocument
  const bar = el('header', 'cp-bar')
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
  bar.append(contentsButton, title, courseState, save, leaveWrap)
  // A click anywhere else closes the leave menu, as a menu does.
  doc.addEventListener('click', (e) => {
    if (!leaveMenu.hidden && !leaveWrap.contains(e.target as Node)) setLeaveOpen(false)
  })

  return {
    element: bar,
    setTitle(text) {
      title.textContent = text
      doc.title = text
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
    setExitShown(shown) {
      exit.hidden = !shown
      if (exit.hidden) setLeaveOpen(false)
    },
    closeLeaveMenu() {
      if (leaveMenu.hidden) return false
      setLeaveOpen(false)
      exit.focus()
      return true
    },
  }
}
