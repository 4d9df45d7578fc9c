import { api } from '../api.client.ts'
import { useSession } from '../session.ts'
import { ActionForm, Field, formValues, PageFrame } from '../ui.tsx'

/** The signed-in user's password (other sessions of the user are signed out on change). */
export function AccountPage() {
  const { me } = useSession()
  return (
    <PageFrame title="Account" class="account">
      <p>
        Signed in as {me.user.email} ({me.user.role}).
      </p>
      <ActionForm
        title="Change password"
        button="Change password"
        onSubmit={async (form) => {
          const v = formValues(form)
          await api.post('/password', {
            current_password: v.current_password,
            new_password: v.new_password,
          })
          form.reset()
          return <p>Password changed. Other browsers signed in as you were signed out.</p>
        }}
      >
        <Field label="Current password">
          <input name="current_password" type="password" autocomplete="current-password" required />
        </Field>
        <Field label="New password (at least 10 characters)">
          <input
            name="new_password"
            type="password"
            autocomplete="new-password"
            minLength={10}
            required
          />
        </Field>
      </ActionForm>
    </PageFrame>
  )
}
