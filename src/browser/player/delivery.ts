/**
 * One launch of one SCO: the data-model runtime that answers the SCO, wired to an outbox that
 * carries its commits to the server. The API object is published on the player window, where the
 * SCO's standard discovery (walking `parent`, then `opener`) finds it.
 */
import {
  type Api12,
  type Api2004,
  createRuntime,
  type DataModelOptions,
  type Delta,
  type Runtime,
  type TerminateSummary,
} from '../../modules/scorm/data-model/index.ts'
import type { Navigator } from './navigator.ts'
import { Outbox, type OutboxStatus, type OutboxStorage, REFUSED_PER_COMMIT } from './outbox.ts'
import type { DeliveryResponse, RefusedCall, SessionSummary } from './protocol.types.ts'
import type { RuntimeClient } from './runtime.client.ts'

export interface Delivery {
  readonly id: string
  readonly itemId: string
  readonly version: '1.2' | '2004'
  readonly runtime: Runtime<Api12 | Api2004>
  /** What the SCO is given: the runtime's API, noting refused SetValue calls for the server. */
  readonly api: Api12 | Api2004
  readonly outbox: Outbox
  /** Set while the player unloads the SCO itself: a Terminate then carries no navigation. */
  leaving: boolean
  terminated: boolean
}

export interface OpenDeliveryOptions {
  readonly response: DeliveryResponse
  readonly sessionId: string
  readonly runtimeToken: string
  readonly client: RuntimeClient
  /** Answers adl.nav.request_valid.* (the flow navigator, or the sequencer's last word). */
  readonly navigator: Pick<Navigator, 'requestValid'>
  readonly dataModelOptions: DataModelOptions
  readonly storage: OutboxStorage | null
  readonly onTerminate: (delivery: Delivery, summary: TerminateSummary) => void
  readonly onStatus: (outbox: Outbox, status: OutboxStatus) => void
  /** Each commit the SCO (or the player) makes, once queued. */
  readonly onCommit?: (delivery: Delivery, delta: Delta) => void
  /** The course's status from the server's answer to a commit. */
  readonly onSession?: (session: SessionSummary) => void
  /** Commit retry backoff; default the outbox's (1 s doubling to 30 s). */
  readonly retry?: { readonly baseMs?: number; readonly maxMs?: number }
}

export function openDelivery(o: OpenDeliveryOptions): Delivery {
  const { response } = o
  const version = response.scorm_version === '1.2' ? '1.2' : '2004'
  // The runtime is created after the outbox but the outbox only calls changesSince on a gap,
  // which needs an answer from the server first; by then `runtime` is set.
  let runtime: Runtime<Api12 | Api2004> | undefined
  const outbox: Outbox = new Outbox({
    sessionId: o.sessionId,
    deliveryId: response.delivery_id,
    storage: o.storage,
    send: async (delta, refused) => {
      const outcome = await o.client.commit(o.runtimeToken, response.delivery_id, delta, refused)
      if (outcome.kind === 'acked' && outcome.session) o.onSession?.(outcome.session)
      return outcome
    },
    changesSince: (seq) => (runtime as Runtime<Api12 | Api2004>).changesSince(seq),
    onStatus: (status) => o.onStatus(outbox, status),
    ...(o.retry ? { retry: o.retry } : {}),
  })
  const refused: RefusedCall[] = []
  const delivery: Delivery = {
    id: response.delivery_id,
    itemId: response.item_id,
    version,
    outbox,
    leaving: false,
    terminated: false,
    get runtime() {
      return runtime as Runtime<Api12 | Api2004>
    },
    get api() {
      return api
    },
  }
  runtime = createRuntime({
    version,
    initial: response.launch_data,
    options: o.dataModelOptions,
    navigation: { requestValid: (request, target) => o.navigator.requestValid(request, target) },
    // Accepted as soon as it is queued: the outbox (memory + localStorage) delivers it later, so
    // a network hiccup never surfaces to the SCO as a failed Commit.
    onCommit: (delta) => {
      outbox.push(delta, refused.splice(0))
      o.onCommit?.(delivery, delta)
      return true
    },
    onTerminate: (summary) => {
      delivery.terminated = true
      o.onTerminate(delivery, summary)
    },
  })
  const api = noteRefusals(runtime, refused)
  return delivery
}

/** Longest refused value reported to the server. */
const REFUSED_VALUE_MAX = 200

/**
 * The runtime's API with SetValue / LMSSetValue wrapped: a call the data model refuses (wrong
 * type, read-only, out of range, unknown element…) is noted for the next commit, so support can
 * see what a course tried to store and could not. Only the first REFUSED_PER_COMMIT per commit.
 */
function noteRefusals(runtime: Runtime<Api12 | Api2004>, out: RefusedCall[]): Api12 | Api2004 {
  const api = runtime.api
  const name = 'SetValue' in api ? 'SetValue' : 'LMSSetValue'
  const original = (api as unknown as Record<string, (e?: unknown, v?: unknown) => string>)[name]
  if (!original) return api
  const setValue = (element?: unknown, value?: unknown): string => {
    const result = original.call(api, element, value)
    if (result === 'false' && out.length < REFUSED_PER_COMMIT) {
      out.push({
        element: String(element ?? '').slice(0, REFUSED_VALUE_MAX),
        value: String(value ?? '').slice(0, REFUSED_VALUE_MAX),
        error_code: runtime.lastError().code,
      })
    }
    return result
  }
  return { ...api, [name]: setValue } as Api12 | Api2004
}

/** Publishes the runtime's API under the name its SCORM version uses, and only that one. */
export function exposeApi(win: Window, delivery: Delivery | undefined): void {
  const slots = win as unknown as Record<string, unknown>
  delete slots.API
  delete slots.API_1484_11
  if (!delivery) return
  slots[delivery.version === '1.2' ? 'API' : 'API_1484_11'] = delivery.api
}

/**
 * The data model's options from the start or delivery response. The protocol document names the
 * 1.2 suspend_data limit `suspendDataMax12`; the data model calls it `suspendDataLimit12`. Both
 * work. Limits must be positive numbers; `lenientIdentifiers` (a package's runtime option
 * `lenient_identifiers`) must be true to count.
 */
export function dataModelOptions(
  raw: Readonly<Record<string, number | boolean | undefined>> | undefined,
): DataModelOptions {
  const pick = (...names: string[]) => {
    for (const n of names) {
      const v = raw?.[n]
      if (typeof v === 'number' && Number.isFinite(v) && v > 0) return v
    }
    return undefined
  }
  const options: Record<string, number | boolean> = {}
  const entries: Array<[keyof DataModelOptions, number | undefined]> = [
    ['suspendDataLimit12', pick('suspendDataLimit12', 'suspendDataMax12')],
    ['suspendDataLimit2004', pick('suspendDataLimit2004', 'suspendDataMax2004')],
    ['maxValueLength', pick('maxValueLength')],
    ['maxCollectionItems', pick('maxCollectionItems')],
    ['maxTotalChars', pick('maxTotalChars')],
  ]
  for (const [name, value] of entries) if (value !== undefined) options[name] = value
  if (raw?.lenientIdentifiers === true) options.lenientIdentifiers = true
  return options as DataModelOptions
}
