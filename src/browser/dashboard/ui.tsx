/**
 * Building blocks every page shares (the other pages' authors: import from here): loading data,
 * tables that turn into cards on a phone, labelled fields, buttons that report their outcome,
 * secrets shown once, and the formatting of numbers and times.
 */
import {
  type ComponentChildren,
  cloneElement,
  isValidElement,
  type TargetedSubmitEvent,
  type VNode,
} from 'preact'
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks'
import { ApiError } from './api.client.ts'

/** Fired when the server answers 401: the shell then shows the sign-in form. */
export const SIGNED_OUT_EVENT = 'courseport:signed-out'

export function errorText(err: unknown): string {
  if (err instanceof ApiError && err.status === 429) return 'Too many attempts. Wait a few minutes.'
  return err instanceof Error ? err.message : String(err)
}

function reportSignedOut(err: unknown): void {
  if (err instanceof ApiError && err.status === 401)
    window.dispatchEvent(new Event(SIGNED_OUT_EVENT))
}

export interface Loaded<T> {
  data: T | undefined
  error: string | undefined
  loading: boolean
  /** Loads again, keeping the current data on screen meanwhile. */
  reload(): void
}

/** Runs `load` now and whenever `deps` change; a 401 signs the page out. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({
    loading: true,
  })
  const [tick, setTick] = useState(0)
  useEffect(() => {
    let live = true
    setState((s) => ({ ...s, loading: true }))
    load().then(
      (data) => live && setState({ data, loading: false }),
      (err: unknown) => {
        reportSignedOut(err)
        if (live) setState({ error: errorText(err), loading: false })
      },
    )
    return () => {
      live = false
    }
  }, [...deps, tick])
  const reload = useCallback(() => setTick((t) => t + 1), [])
  return { data: state.data, error: state.error, loading: state.loading, reload }
}

/** Shows `children(data)` once loaded, the error otherwise, "Loading…" until then. */
export function Loader<T>(props: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  const { data, error } = props.loaded
  if (error && data === undefined)
    return (
      <p class="error" role="alert">
        {error}
      </p>
    )
  if (data === undefined) return <p aria-busy="true">Loading…</p>
  // While newer data loads the old stays on screen, marked busy (the wrapper adds no box).
  return (
    <div class="loaded" aria-busy={props.loaded.loading ? 'true' : undefined}>
      {props.children(data)}
    </div>
  )
}

/** A page's frame: its heading (the page's name for assistive technology) and content. */
export function PageFrame(props: {
  title: string
  back?: { href: string; label: string }
  class?: string
  children: ComponentChildren
}) {
  return (
    <section aria-labelledby="page-title" class={props.class ?? 'manage'}>
      {props.back && (
        <p class="back">
          <a href={props.back.href}>← {props.back.label}</a>
        </p>
      )}
      <h2 id="page-title">{props.title}</h2>
      {props.children}
    </section>
  )
}

export type Cell = ComponentChildren

/**
 * A table in a focusable, labelled scroll region. Below 40rem each row becomes a card with the
 * column names beside the values (dashboard.css); the explicit roles keep it a table for
 * assistive technology when CSS changes its display.
 */
// The roles restated on purpose (spread so the linter's redundant-role rule leaves them): the
// phone layout changes the table's display, which makes browsers drop its implicit semantics.
const role = {
  table: { role: 'table' },
  rowgroup: { role: 'rowgroup' },
  row: { role: 'row' },
  columnheader: { role: 'columnheader' },
  cell: { role: 'cell' },
} as const

export function DataTable(props: {
  caption: string
  head: string[]
  rows: Cell[][]
  empty?: string
  /** Row keys (ids), so a redraw keeps focus on the right row. */
  keys?: string[]
}) {
  const { head, rows } = props
  return (
    // Focusable so a keyboard can scroll a wide table (axe: scrollable-region-focusable).
    <section class="scroll" tabindex={0} aria-label={props.caption}>
      <table {...role.table}>
        <caption>{props.caption}</caption>
        <thead {...role.rowgroup}>
          <tr {...role.row}>
            {head.map((c) => (
              <th scope="col" {...role.columnheader} key={c}>
                {c || <span class="visually-hidden">Actions</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody {...role.rowgroup}>
          {rows.length ? (
            rows.map((cells, r) => (
              <tr {...role.row} key={props.keys?.[r] ?? r}>
                {cells.map((c, i) => (
                  <td {...role.cell} data-label={head[i]} key={head[i] ?? i}>
                    {c}
                  </td>
                ))}
              </tr>
            ))
          ) : (
            <tr {...role.row}>
              <td {...role.cell} colSpan={head.length}>
                {props.empty ?? 'Nothing yet.'}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  )
}

/**
 * A label and its control, tied by id (`for`), so the control's accessible name is exactly
 * `label` (a wrapping label would add a select's chosen option to the name).
 */
export function Field(props: { label: string; hint?: string; children: ComponentChildren }) {
  const generated = useId()
  const child = props.children
  const single = isValidElement(child) ? (child as VNode<{ id?: string }>) : null
  const id = single?.props.id ?? generated
  if (!single)
    return (
      // biome-ignore lint/a11y/noLabelWithoutControl: the controls are passed in as children
      <label class="field">
        <span>{props.label}</span>
        {child}
        {props.hint && <small>{props.hint}</small>}
      </label>
    )
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {single ? cloneElement(single, { id }) : child}
      {props.hint && <small>{props.hint}</small>}
    </div>
  )
}

/** A secret the server shows once, in a read-only field the user can select and copy. */
export function ShownOnce(props: { label: string; value: string; note: string }) {
  const input = useRef<HTMLInputElement>(null)
  return (
    <div class="once">
      <p>{props.note}</p>
      <div class="copy">
        <input
          ref={input}
          readOnly
          value={props.value}
          aria-label={props.label}
          class="secret"
          onFocus={(e) => e.currentTarget.select()}
        />
        <button
          type="button"
          class="small"
          onClick={() => {
            input.current?.select()
            void navigator.clipboard?.writeText(props.value).catch(() => undefined)
          }}
        >
          Copy
        </button>
      </div>
    </div>
  )
}

export type Outcome = ComponentChildren

/**
 * The outcome of the page's last action in a live region: `run(action)` shows what the action
 * returns (or nothing), or its error; `busy` is true while it runs.
 */
export function useStatus() {
  const [outcome, setOutcome] = useState<{ node?: Outcome; error?: string }>({})
  const [busy, setBusy] = useState(false)
  const run = useCallback(async (action: () => Promise<Outcome | undefined>) => {
    setBusy(true)
    setOutcome({})
    try {
      const node = await action()
      setOutcome({ node })
    } catch (err) {
      reportSignedOut(err)
      setOutcome({ error: errorText(err) })
    } finally {
      setBusy(false)
    }
  }, [])
  const node = (
    <div role="status" class="status">
      {outcome.error ? <p class="error">{outcome.error}</p> : outcome.node}
    </div>
  )
  return { run, busy, node, clear: () => setOutcome({}) }
}

/** A small button that asks `confirm` first (when given) and runs `onRun` through `run`. */
export function ActionButton(props: {
  label: string
  run: (action: () => Promise<Outcome | undefined>) => Promise<void>
  onRun: () => Promise<Outcome | undefined>
  confirm?: string
  danger?: boolean
  name?: string
  disabled?: boolean
}) {
  const [busy, setBusy] = useState(false)
  return (
    <button
      type="button"
      class={props.danger ? 'small danger' : 'small'}
      aria-label={props.name}
      disabled={busy || props.disabled}
      onClick={() => {
        if (props.confirm && !window.confirm(props.confirm)) return
        setBusy(true)
        void props.run(props.onRun).finally(() => setBusy(false))
      }}
    >
      {props.label}
    </button>
  )
}

/** A card form whose submit runs `onSubmit` and shows its outcome below the button. */
export function ActionForm(props: {
  title: string
  button: string
  onSubmit: (form: HTMLFormElement) => Promise<Outcome | undefined>
  children: ComponentChildren
  class?: string
}) {
  const status = useStatus()
  const id = `${props.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-title`
  const submit = (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = event.currentTarget
    void status.run(() => props.onSubmit(form))
  }
  return (
    <form class={props.class ?? 'card'} aria-labelledby={id} onSubmit={submit}>
      <h3 id={id}>{props.title}</h3>
      {props.children}
      <button type="submit" disabled={status.busy}>
        {props.button}
      </button>
      {status.node}
    </form>
  )
}

/** A form's named values as strings ('' when absent). */
export function formValues(form: HTMLFormElement): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of new FormData(form)) if (typeof v === 'string') out[k] = v
  return out
}

// The formatting helpers live in format.ts; re-exported so a page needs one import.
export { day, duration, kib, percent, when } from './format.ts'
