import { ApiError, type Me, type Mode } from './api.client.ts'
import { h } from './dom.ts'

/** What a page needs besides the server: who is signed in, the mode, and how to redraw. */
export interface PageContext {
  me: Me
  mode: Mode
  /** Renders the current page again from the server's data. */
  refresh(): void
}

export function errorText(err: unknown): string {
  return err instanceof ApiError ? err.message : String(err)
}

/**
 * A button that runs `action` (after `confirm`, when given) and tells the outcome in `status`
 * (a live region), or redraws the page when the action returns nothing.
 */
export function actionButton(
  label: string,
  status: HTMLElement,
  action: () => Promise<string | HTMLElement | undefined>,
  options: { confirm?: string; danger?: boolean; name?: string } = {},
): HTMLButtonElement {
  const button = h(
    'button',
    {
      type: 'button',
      class: options.danger ? 'small danger' : 'small',
      'aria-label': options.name,
    },
    label,
  ) as HTMLButtonElement
  button.addEventListener('click', () => {
    if (options.confirm && !window.confirm(options.confirm)) return
    button.disabled = true
    status.replaceChildren()
    action().then(
      (done) => {
        button.disabled = false
        if (done !== undefined) status.replaceChildren(done)
      },
      (err: unknown) => {
        button.disabled = false
        status.replaceChildren(h('p', { class: 'error' }, errorText(err)))
      },
    )
  })
  return button
}

/** A secret the server shows once, in a read-only field the user can select and copy. */
export function shownOnce(label: string, value: string, note: string): HTMLElement {
  return h(
    'div',
    { class: 'once' },
    h('p', {}, note),
    h('input', { readonly: true, value, 'aria-label': label, class: 'secret' }),
  )
}

export function statusRegion(): HTMLElement {
  return h('div', { role: 'status', class: 'status' })
}
