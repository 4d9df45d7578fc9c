/**
 * The stage: the SCO frame, a full-stage message screen (loading, error, end) and a notice
 * banner over the bottom of the stage that leaves the SCO visible.
 */
import type { MakeElement } from './view.element.ts'

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

export interface StageView {
  readonly element: HTMLElement
  unloadFrame(timeoutMs: number): Promise<void>
  showFrame(src: string, title: string): HTMLIFrameElement
  removeFrame(): void
  showScreen(message: Message): void
  showNotice(message: Message): void
  clearMessages(): void
}

export function createStageView(el: MakeElement): StageView {
  const stage = el('main', 'cp-stage')
  const screen = el('section', 'cp-screen')
  screen.setAttribute('aria-live', 'polite')
  screen.hidden = true
  const notice = el('section', 'cp-notice')
  notice.setAttribute('aria-live', 'polite')
  notice.hidden = true
  stage.append(screen, notice)
  let frame: HTMLIFrameElement | undefined

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
    element: stage,
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
  }
}
