import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { Me } from '../../http/customer/customer.schemas.ts'
import type { Mode } from './api.client.ts'
import { link, matchPath, useLocation } from './router.ts'
import { routes } from './routes.ts'
import { type DashboardSession, SessionContext } from './session.ts'

function findRoute(path: string) {
  const wanted = path === '/' ? '/overview' : path
  for (const route of routes) {
    const params = matchPath(route.path, wanted)
    if (params) return { route, params }
  }
  return null
}

/**
 * The signed-in frame: the navigation (from routes.ts), the test/live switch, who is signed in
 * and "Sign out", and the page the URL fragment names.
 */
export function Shell(props: {
  me: Me
  mode: Mode
  setMode: (mode: Mode) => void
  signOut: () => void
}) {
  const { me, mode } = props
  const loc = useLocation()
  const found = findRoute(loc.path)
  const session = useMemo<DashboardSession>(
    () => ({ me, mode, canManage: me.user.role !== 'viewer', isOwner: me.user.role === 'owner' }),
    [me, mode],
  )
  const main = useRef<HTMLElement>(null)
  const title = found?.route.title ?? 'Not found'
  const first = useRef(true)
  const [menuOpen, setMenuOpen] = useState(false)
  useEffect(() => {
    setMenuOpen(false)
    document.title = `${title} · Courseport`
    // A new page moves focus to its content, as a page load would, but not on the first render.
    if (!first.current) main.current?.focus({ preventScroll: true })
    first.current = false
  }, [loc.path, title])
  const Page = found?.route.component
  const params = { ...loc.query, ...(found?.params ?? {}) }
  const navPath = found ? `/${found.route.path.split('/')[1] ?? ''}` : ''
  return (
    <SessionContext.Provider value={session}>
      <button type="button" class="skip" onClick={() => main.current?.focus()}>
        Skip to content
      </button>
      <header class={mode === 'live' ? 'top live' : 'top'}>
        <p class="brand">Courseport</p>
        {/* Only shown at phone width (shell.css), where the links would fill the screen. */}
        <button
          type="button"
          class="menu-button secondary"
          aria-expanded={menuOpen}
          aria-controls="dashboard-nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          {menuOpen ? 'Close menu' : 'Menu'}
        </button>
        <nav aria-label="Dashboard" id="dashboard-nav" class={menuOpen ? 'open' : undefined}>
          {routes
            .filter((r) => r.nav)
            .map((r) => (
              <a
                key={r.path}
                href={link(r.path)}
                aria-current={navPath === r.path ? 'page' : undefined}
              >
                {r.title}
              </a>
            ))}
        </nav>
        <div class="who">
          <div class="field inline">
            <label for="mode">Mode</label>
            <select
              name="mode"
              id="mode"
              value={mode}
              onChange={(e) => props.setMode(e.currentTarget.value === 'live' ? 'live' : 'test')}
            >
              <option value="test">Test data</option>
              <option value="live">Live data</option>
            </select>
          </div>
          <span class="email">{me.user.email}</span>
          <button type="button" class="link" onClick={props.signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="content" ref={main} tabindex={-1}>
        {Page ? (
          <Page key={`${found?.route.path}|${mode}`} params={params} />
        ) : (
          <section aria-labelledby="page-title">
            <h2 id="page-title">Not found</h2>
            <p>
              No page here. <a href={link('/overview')}>Go to the overview</a>.
            </p>
          </section>
        )}
      </main>
    </SessionContext.Provider>
  )
}
