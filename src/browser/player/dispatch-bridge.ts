/**
 * The hosted side of the dispatch wrapper bridge (docs/dispatch.md). When the player runs inside
 * a dispatch wrapper — the frame page put the LMS origin it got from `event.origin` into the
 * fragment — the bridge watches the player's own runtime calls and, after each commit the
 * server has accepted, posts what the client LMS should record to the wrapper. Commits keep
 * going to our server exactly as without it; nothing here can make one fail.
 *
 * Hooked in through `PlayerEnv.fetch` (main.ts); the rest of the player does not know about it.
 */
import {
  isoDurationSeconds,
  parseIsoDuration,
  parseTimespan,
} from '../../modules/scorm/data-model/durations.ts'
import {
  BRIDGE_HASH_PARAM,
  type BridgeState,
  exactOrigin,
  message,
} from '../dispatch-wrapper/protocol.ts'
import type { FetchFn } from './runtime.client.ts'

export interface DispatchBridge {
  /** The player's fetch: the page's own, observed. */
  readonly fetch: FetchFn
}

/** Navigation requests after which the course is over for this launch. */
const ENDING_REQUESTS = new Set(['exitAll', 'suspendAll', 'abandonAll'])

type Summary = {
  completion_status?: unknown
  success_status?: unknown
  progress_percent?: unknown
  score?: { scaled?: unknown; raw?: unknown; min?: unknown; max?: unknown }
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null)

function seconds(value: string): number | null {
  const iso = parseIsoDuration(value)
  if (iso) return isoDurationSeconds(iso)
  const centis = parseTimespan(value)
  return centis === undefined ? null : centis / 100
}

/** Folds commits (what the SCOs sent) and the server's answers (the session) into one state. */
export class BridgeTracker {
  #launchable = 0
  readonly #sessionTime = new Map<string, number>()
  #state: BridgeState = {
    completion: 'unknown',
    success: 'unknown',
    score: { scaled: null, raw: null, min: null, max: null },
    progress: null,
    sessionSeconds: null,
    location: null,
    suspendData: null,
    exit: null,
    ended: false,
  }

  started(body: { items?: Array<{ launchable?: unknown }> }): void {
    this.#launchable = (body.items ?? []).filter((i) => i.launchable === true).length
  }

  /** One accepted commit: the delta sent and the session the server answered with. */
  committed(deliveryId: string, delta: Record<string, unknown>, session: Summary): BridgeState {
    const values = (delta.values ?? {}) as Record<string, unknown>
    const value = (...names: string[]) => {
      for (const n of names) if (typeof values[n] === 'string') return values[n] as string
      return undefined
    }
    const s = this.#state
    const location = value('cmi.location', 'cmi.core.lesson_location')
    const suspendData = value('cmi.suspend_data')
    const exit = value('cmi.exit', 'cmi.core.exit')
    const time = value('cmi.session_time', 'cmi.core.session_time')
    const nav = value('adl.nav.request')
    if (time !== undefined) {
      const secs = seconds(time)
      if (secs !== null) this.#sessionTime.set(deliveryId, secs)
    }
    const total = [...this.#sessionTime.values()].reduce((a, b) => a + b, 0)
    const completion = String(session.completion_status)
    const success = String(session.success_status)
    const progress = num(session.progress_percent)
    this.#state = {
      completion: ['completed', 'incomplete', 'not attempted'].includes(completion)
        ? (completion as BridgeState['completion'])
        : s.completion,
      success: ['passed', 'failed', 'unknown'].includes(success)
        ? (success as BridgeState['success'])
        : s.success,
      score: {
        scaled: num(session.score?.scaled),
        raw: num(session.score?.raw),
        min: num(session.score?.min),
        max: num(session.score?.max),
      },
      progress: progress === null ? s.progress : progress / 100,
      sessionSeconds: this.#sessionTime.size > 0 ? total : null,
      location: location ?? s.location,
      suspendData: suspendData ?? s.suspendData,
      exit: exit === undefined ? s.exit : exit === 'suspend' ? 'suspend' : 'normal',
      ended:
        s.ended ||
        (delta.final === true &&
          ((nav !== undefined && ENDING_REQUESTS.has(nav)) || this.#launchable <= 1)),
    }
    return this.#state
  }
}

function parseBody(init: RequestInit | undefined): Record<string, unknown> | null {
  try {
    return typeof init?.body === 'string'
      ? (JSON.parse(init.body) as Record<string, unknown>)
      : null
  } catch {
    return null
  }
}

/**
 * The bridge when this page runs inside a dispatch wrapper, else null. The wrapper's origin comes
 * from the fragment the frame page wrote; where the browser can tell who framed us
 * (`location.ancestorOrigins`), it must be that origin too. Messages go to that origin only.
 */
export function connectDispatchBridge(win: Window): DispatchBridge | null {
  const hash = new URLSearchParams(win.location.hash.replace(/^#/, ''))
  const origin = exactOrigin(hash.get(BRIDGE_HASH_PARAM))
  if (!origin || win.parent === win) return null
  const ancestors = win.location.ancestorOrigins
  if (ancestors && ancestors.length > 0 && ancestors[0] !== origin) return null
  const tracker = new BridgeTracker()

  const observe = async (url: string, init: RequestInit | undefined, response: Response) => {
    if (!response.ok) return
    if (url.endsWith('/start')) {
      tracker.started((await response.json()) as { items?: Array<{ launchable?: unknown }> })
      return
    }
    if (!url.endsWith('/commits')) return
    const sent = parseBody(init)
    const answer = (await response.json()) as { applied?: unknown; session?: Summary }
    if (!sent || answer.applied !== true || !answer.session) return
    const state = tracker.committed(
      String(sent.delivery_id),
      (sent.delta ?? {}) as Record<string, unknown>,
      answer.session,
    )
    win.parent.postMessage(message({ kind: 'state', state }), origin)
  }

  return {
    async fetch(input, init) {
      const response = await win.fetch(input, init)
      // The copy is read here; the player reads the original.
      observe(input, init, response.clone()).catch(() => {})
      return response
    },
  }
}
