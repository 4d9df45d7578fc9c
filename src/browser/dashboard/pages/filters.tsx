import type { ComponentChildren, TargetedSubmitEvent } from 'preact'
import { useState } from 'preact/hooks'
import { replaceQuery } from '../router.ts'
import { formValues } from '../ui.tsx'

/** `2026-11-01` (a date input) → the start of that UTC day, as the API's date-time filters want. */
export function dayStart(date: string | undefined): string | undefined {
  return date ? `${date}T00:00:00.000Z` : undefined
}

/**
 * A filter form whose values live in the URL fragment's query (so a filtered view can be
 * bookmarked and reloaded); submitting replaces them and the page reloads its data.
 */
export function FilterForm(props: { label: string; children: ComponentChildren }) {
  const submit = (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    replaceQuery(formValues(event.currentTarget))
  }
  return (
    <form class="filters" aria-label={props.label} onSubmit={submit}>
      {props.children}
      <div class="filter-buttons">
        <button type="submit">Apply</button>
        <button type="button" class="secondary" onClick={() => replaceQuery({})}>
          Clear
        </button>
      </div>
    </form>
  )
}

/**
 * A select that keeps what the user chose across the page's redraws (a `value` prop alone would
 * be put back on every redraw, e.g. when data arrives).
 */
export function ChoiceSelect(props: {
  name: string
  initial: string
  options: [value: string, label: string][]
  id?: string
}) {
  const [value, setValue] = useState(props.initial)
  return (
    <select
      name={props.name}
      id={props.id}
      value={value}
      onChange={(e) => setValue(e.currentTarget.value)}
    >
      {props.options.map(([v, label]) => (
        <option key={v} value={v}>
          {label}
        </option>
      ))}
    </select>
  )
}
