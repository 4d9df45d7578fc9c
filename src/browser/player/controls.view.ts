/** The bottom bar: Previous, the position ("2 of 5") and Continue. */
import type { MakeElement } from './view.element.ts'

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

export interface ControlsView {
  readonly element: HTMLElement
  setControls(state: ControlsState): void
}

export function createControlsView(
  root: HTMLElement,
  el: MakeElement,
  handlers: { previous(): void; next(): void },
): ControlsView {
  const controls = el('nav', 'cp-controls')
  controls.setAttribute('aria-label', 'Course navigation')
  const prev = el('button', 'cp-nav cp-prev', 'Previous')
  const position = el('span', 'cp-position')
  const next = el('button', 'cp-nav cp-next', 'Continue')
  prev.type = 'button'
  next.type = 'button'
  controls.append(prev, position, next)
  prev.addEventListener('click', () => handlers.previous())
  next.addEventListener('click', () => handlers.next())
  return {
    element: controls,
    setControls(state) {
      prev.disabled = !state.canPrevious
      next.disabled = !state.canNext
      prev.hidden = state.hidePrevious === true
      next.hidden = state.hideNext === true
      position.textContent = state.position
      root.dataset.busy = String(state.busy === true)
    },
  }
}
