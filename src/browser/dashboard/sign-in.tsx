import type { TargetedSubmitEvent } from 'preact'
import { useState } from 'preact/hooks'
import type { Me } from '../../http/customer/customer.schemas.ts'
import { errorText, Field } from './ui.tsx'

/**
 * The sign-in form, and the same form without the e-mail for a one-time invite link (the user
 * chooses a password and is signed in).
 */
export function PasswordForm(props: {
  title: string
  withEmail: boolean
  submit: (email: string, password: string) => Promise<Me>
  done: (me: Me) => void
}) {
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const onSubmit = (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const data = new FormData(event.currentTarget)
    setError('')
    setBusy(true)
    props.submit(String(data.get('email') ?? ''), String(data.get('password') ?? '')).then(
      (me) => props.done(me),
      (err: unknown) => {
        setBusy(false)
        setError(errorText(err))
      },
    )
  }
  return (
    <main class="center">
      <form class="card" aria-labelledby="form-title" onSubmit={onSubmit}>
        <p class="brand">Courseport</p>
        <h1 id="form-title">{props.title}</h1>
        {props.withEmail && (
          <Field label="E-mail">
            <input name="email" type="email" autocomplete="username" required />
          </Field>
        )}
        <Field label={props.withEmail ? 'Password' : 'New password (at least 10 characters)'}>
          <input
            name="password"
            type="password"
            autocomplete={props.withEmail ? 'current-password' : 'new-password'}
            minLength={props.withEmail ? undefined : 10}
            required
          />
        </Field>
        <button type="submit" disabled={busy}>
          {props.withEmail ? 'Sign in' : 'Set password and sign in'}
        </button>
        <p class="error" role="alert">
          {error}
        </p>
      </form>
    </main>
  )
}
