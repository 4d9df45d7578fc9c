/**
 * What a navigation request carries into the sequencer (docs/runtime-protocol.md §6): the
 * request itself, and the results of the SCO being left, read from what the server stored for
 * its delivery — never from the request's body.
 */
import type { Executor } from '../../infra/db/schema.ts'
import type { SessionsTable } from '../../infra/db/tables/sessions.ts'
import { AppError } from '../../shared/app-error.ts'
import {
  type NavigationRequest,
  requestAfterTerminate,
  type ScoResults,
  type TrackingState,
} from '../scorm/sequencing/index.ts'
import { deliveryResults } from './delivery-results.ts'
import type { Loaded } from './runtime.types.ts'

export const NAVIGATION_REQUESTS = [
  'start',
  'resumeAll',
  'continue',
  'previous',
  'choice',
  'jump',
  'exit',
  'exitAll',
  'suspendAll',
  'abandon',
  'abandonAll',
] as const

export type NavigationRequestName = (typeof NAVIGATION_REQUESTS)[number]

/** `POST …/navigation`'s body, checked. */
export interface NavigationInput {
  request: NavigationRequestName
  /** The activity (item id) of a choice or jump. */
  target?: string
  /** The delivery being left; a request naming one the sequencer already left is stale. */
  deliveryId?: string
}

/** Reads `POST …/navigation`'s body; a malformed one is an `invalid_request`. */
export function parseNavigationInput(body: Record<string, unknown>): NavigationInput {
  const request = NAVIGATION_REQUESTS.find((r) => r === body.request)
  if (!request) {
    throw new AppError(
      'invalid_request',
      `request must be one of ${NAVIGATION_REQUESTS.join(', ')}`,
    )
  }
  const needsTarget = request === 'choice' || request === 'jump'
  if (needsTarget && (typeof body.target !== 'string' || body.target === '')) {
    throw new AppError('invalid_request', `A ${request} request needs a target (an item id)`)
  }
  if (body.delivery_id !== undefined && typeof body.delivery_id !== 'string') {
    throw new AppError('invalid_request', 'delivery_id must be a string')
  }
  return {
    request,
    ...(needsTarget && { target: body.target as string }),
    ...(typeof body.delivery_id === 'string' && { deliveryId: body.delivery_id }),
  }
}

/** The refusal every request the sequencer will not carry out gets; nothing was changed. */
export function navigationRefused(exception: string, message: string): AppError {
  return new AppError('navigation_refused', message, { exception })
}

/**
 * A request naming a delivery the sequencer has already left (another tab navigated, or the
 * request is a replay) is refused before it can move the attempt a second time.
 */
export function checkNotStale(session: SessionsTable, input: NavigationInput): void {
  const { deliveryId } = input
  if (deliveryId === undefined || deliveryId === session.sequencing_delivery_id) return
  throw new AppError(
    'navigation_refused',
    `Delivery ${deliveryId} is no longer the one being shown: the attempt has moved on`,
    { exception: 'stale_delivery', current_delivery_id: session.sequencing_delivery_id ?? null },
  )
}

/** Whether the sequencer's Current Activity is being attempted (a SCO was delivered). */
export function currentIsActive(state: TrackingState): boolean {
  return state.current !== null && state.activities[state.current]?.active === true
}

/**
 * The engine request for a player's request. A launch (`start`, `resumeAll`) of an attempt whose
 * sequencing session is still running (the page was reloaded, the tab closed without exit)
 * relaunches the Current Activity; `start` of a suspended attempt is Resume All.
 */
export function engineRequest(
  state: TrackingState,
  input: NavigationInput,
): NavigationRequest | 'relaunch' {
  const launch = input.request === 'start' || input.request === 'resumeAll'
  if (launch && currentIsActive(state)) return 'relaunch'
  if (input.request === 'start' && state.current === null && state.suspended !== null) {
    return { type: 'resumeAll' }
  }
  return { type: input.request, ...(input.target !== undefined && { target: input.target }) }
}

/** The results of the delivery being left, and its `cmi.exit`. */
export interface LeftDelivery {
  itemId: string
  results: ScoResults
  exit: string | undefined
}

/**
 * What the Current Activity's delivery reported, as stored (`deliveryResults`). Null when no
 * delivery of the Current Activity is known.
 */
export async function leftDelivery(
  trx: Executor,
  loaded: Loaded,
  state: TrackingState,
): Promise<LeftDelivery | null> {
  const id = loaded.session.sequencing_delivery_id
  if (!id || !currentIsActive(state)) return null
  const left = await deliveryResults(trx, loaded.session, id)
  return left && left.itemId === state.current ? left : null
}

/** cmi.exit time-out or logout of the SCO being left ends the course (Exit All). */
export function afterTerminate(
  left: LeftDelivery | null,
  request: NavigationRequest,
): NavigationRequest {
  return left ? (requestAfterTerminate(left.exit, request) ?? request) : request
}
