import { useEffect, useState } from 'preact/hooks'

/**
 * Hash routing: `#/packages/pkg_1?tab=versions` → path `/packages/pkg_1`, query tab=versions.
 * The page lives in the URL fragment, so reload and the back button keep it and the server only
 * ever serves one shell.
 */
export interface Location {
  path: string
  query: Record<string, string>
}

export function currentLocation(): Location {
  const raw = location.hash.replace(/^#\/?/, '')
  const [path = '', search = ''] = raw.split('?')
  return {
    path: `/${path.replace(/\/+$/, '')}`,
    query: Object.fromEntries(new URLSearchParams(search)),
  }
}

/** The `href` of a dashboard page: `link('/sessions', { learner: 'x' })` → `#/sessions?learner=x`. */
export function link(path: string, params: Record<string, string | undefined> = {}): string {
  const search = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v) search.set(k, v)
  const text = search.toString()
  return `#${path}${text ? `?${text}` : ''}`
}

export function navigate(path: string, params: Record<string, string | undefined> = {}): void {
  location.hash = link(path, params)
}

/** Replaces the query of the current page without a history entry (filters). */
export function replaceQuery(params: Record<string, string | undefined>): void {
  history.replaceState(null, '', link(currentLocation().path, params))
  window.dispatchEvent(new HashChangeEvent('hashchange'))
}

/** `/packages/:id` against `/packages/pkg_1` → { id: 'pkg_1' }, or null when it does not fit. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean)
  const got = path.split('/').filter(Boolean)
  if (want.length !== got.length) return null
  const params: Record<string, string> = {}
  for (let i = 0; i < want.length; i++) {
    const w = want[i] as string
    const g = got[i] as string
    if (w.startsWith(':')) params[w.slice(1)] = decodeURIComponent(g)
    else if (w !== g) return null
  }
  return params
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(currentLocation)
  useEffect(() => {
    const update = () => setLoc(currentLocation())
    window.addEventListener('hashchange', update)
    return () => window.removeEventListener('hashchange', update)
  }, [])
  return loc
}
