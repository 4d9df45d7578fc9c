/**
 * The dashboard's entry: the sign-in form (or the invite form of a one-time link), then the shell
 * with the page the URL fragment names. Pages are listed in routes.ts.
 */
import { render } from 'preact'
import { useCallback, useEffect, useState } from 'preact/hooks'
import type { Me } from '../../http/customer/customer.schemas.ts'
import { api, type Mode, rememberCsrf } from './api.client.ts'
import { Shell } from './shell.tsx'
import { PasswordForm } from './sign-in.tsx'
import { SIGNED_OUT_EVENT } from './ui.tsx'

const MODE_KEY = 'cp-mode'

function inviteToken(): string | null {
  return /^#invite=([A-Za-z0-9]+)$/.exec(location.hash)?.[1] ?? null
}

function App() {
  const [me, setMe] = useState<Me | null | undefined>(undefined)
  const [mode, setModeState] = useState<Mode>(() =>
    sessionStorage.getItem(MODE_KEY) === 'live' ? 'live' : 'test',
  )
  const [invite, setInvite] = useState(inviteToken)

  const signedIn = useCallback((answer: Me) => {
    rememberCsrf(answer.csrf_token)
    setMe(answer)
  }, [])

  useEffect(() => {
    api.me().then(signedIn, () => setMe(null))
    const out = () => setMe(null)
    const hash = () => setInvite(inviteToken())
    window.addEventListener(SIGNED_OUT_EVENT, out)
    window.addEventListener('hashchange', hash)
    return () => {
      window.removeEventListener(SIGNED_OUT_EVENT, out)
      window.removeEventListener('hashchange', hash)
    }
  }, [signedIn])

  const setMode = (next: Mode) => {
    sessionStorage.setItem(MODE_KEY, next)
    setModeState(next)
  }
  const signOut = () => {
    // Signed out on the page even if the server cannot be told (its session then idles out).
    void api
      .logout()
      .catch(() => undefined)
      .then(() => setMe(null))
  }

  if (invite)
    return (
      <PasswordForm
        title="Choose your password"
        withEmail={false}
        submit={async (_email, password) => {
          const answer = await api.acceptInvite(invite, password)
          history.replaceState(null, '', '#/overview')
          setInvite(null)
          return answer
        }}
        done={signedIn}
      />
    )
  if (me === undefined) return <p class="center">Loading…</p>
  if (me === null)
    return (
      <PasswordForm
        title="Sign in to Courseport"
        withEmail
        submit={(email, password) => api.login(email, password)}
        done={signedIn}
      />
    )
  return <Shell me={me} mode={mode} setMode={setMode} signOut={signOut} />
}

const root = document.getElementById('app')
if (root) {
  root.replaceChildren()
  render(<App />, root)
}
