import { processNavigationRequest } from './engine.ts'
import type { NavigationRequest } from './navigation/navigation-request.ts'
import type { ContextOptions } from './state/sequencing-context.ts'
import type { TrackingState } from './state/tracking-state.types.ts'
import type { ActivityTree } from './tree/activity-tree.types.ts'

/** The answers behind adl.nav.request_valid.* (and the player's buttons and table of
 * contents). */
export interface RequestValidity {
  continue: boolean
  previous: boolean
  /** Per activity id: would `{target=id}choice` deliver something now. */
  choice: Record<string, boolean>
  /** Per leaf activity id: would `{target=id}jump` deliver it now. */
  jump: Record<string, boolean>
}

/**
 * Whether each request would succeed now, found by running it on a copy of the state (the
 * book's processes, termination of the current attempt included); nothing is kept. Continue
 * also counts as valid when it would end the course (flow past the last activity). Costs one
 * run per activity; the random source is fixed so answers do not depend on a draw.
 */
export function navigationRequestValidity(
  tree: ActivityTree,
  state: TrackingState,
  opts: Pick<ContextOptions, 'globals'> = {},
): RequestValidity {
  const run = (request: NavigationRequest) =>
    processNavigationRequest(tree, state, request, { ...opts, random: () => 0 })
  const cont = run({ type: 'continue' })
  const out: RequestValidity = {
    continue: cont.deliver !== null || cont.sessionEnded,
    previous: run({ type: 'previous' }).deliver !== null,
    choice: {},
    jump: {},
  }
  for (const [id, a] of Object.entries(tree.activities)) {
    out.choice[id] = run({ type: 'choice', target: id }).deliver !== null
    if (a.children.length === 0) out.jump[id] = run({ type: 'jump', target: id }).deliver !== null
  }
  return out
}

/** Parses an adl.nav.request value (`continue`, `{target=act_3}choice`, `_none_`…); null for
 * `_none_` and anything unreadable. */
export function parseNavigationRequest(value: string): NavigationRequest | null {
  const m = /^\{target=([^}]*)\}(choice|jump)$/.exec(value.trim())
  if (m) return { type: m[2] as 'choice' | 'jump', target: (m[1] as string).trim() }
  const simple = [
    'start',
    'resumeAll',
    'continue',
    'previous',
    'exit',
    'exitAll',
    'abandon',
    'abandonAll',
    'suspendAll',
  ] as const
  const found = simple.find((s) => s === value.trim())
  return found ? { type: found } : null
}

/**
 * The navigation request to process when a SCO terminates: cmi.exit `time-out` or `logout`
 * (deprecated) ends the course as Exit All whatever the SCO asked (SCORM 2004 RTE §4.2.10);
 * otherwise the pending adl.nav.request, if any.
 */
export function requestAfterTerminate(
  exit: string | undefined,
  pending: NavigationRequest | null,
): NavigationRequest | null {
  if (exit === 'time-out' || exit === 'logout') return { type: 'exitAll' }
  return pending
}
