/**
 * Finds the LMS's SCORM API object the way ADL's reference SCO does: the window itself and up
 * to 7 parents, then the opener's chain (the course opened in a pop-up), then the top window's
 * opener. A window of another origin throws on access; that is "not here", not an error.
 * Browser-safe: no node: imports.
 */
import type { ScormTarget } from '../course.types.ts'

/** The parts of `window` the search touches. */
export interface WindowLike {
  readonly parent?: WindowLike | null
  readonly opener?: WindowLike | null
  readonly top?: WindowLike | null
}

const MAX_PARENTS = 7

const API_NAME: Readonly<Record<ScormTarget, string>> = { '1.2': 'API', '2004': 'API_1484_11' }
const INIT_NAME: Readonly<Record<ScormTarget, string>> = {
  '1.2': 'LMSInitialize',
  '2004': 'Initialize',
}

function read<T>(get: () => T): T | undefined {
  try {
    return get()
  } catch {
    return undefined
  }
}

function apiIn(win: WindowLike, version: ScormTarget): object | null {
  const api = read(() => (win as Record<string, unknown>)[API_NAME[version]])
  if (api === null || (typeof api !== 'object' && typeof api !== 'function')) return null
  const init = read(() => (api as Record<string, unknown>)[INIT_NAME[version]])
  return typeof init === 'function' ? api : null
}

function searchChain(start: WindowLike | null | undefined, version: ScormTarget): object | null {
  let win = start
  for (let level = 0; win && level <= MAX_PARENTS; level++) {
    const api = apiIn(win, version)
    if (api) return api
    const parent = read(() => win?.parent)
    if (!parent || parent === win) return null
    win = parent
  }
  return null
}

/** The API object for `version` (API for 1.2, API_1484_11 for 2004), or null when there is none. */
export function findScormApi(win: WindowLike, version: ScormTarget): object | null {
  return (
    searchChain(win, version) ??
    searchChain(
      read(() => win.opener),
      version,
    ) ??
    searchChain(
      read(() => read(() => win.top)?.opener),
      version,
    )
  )
}
