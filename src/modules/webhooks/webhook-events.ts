import type { Mode } from '../../infra/db/schema.ts'
import type { WebhookEndpointsTable } from '../../infra/db/tables/webhooks.ts'

export type EventScope = WebhookEndpointsTable['event_scope']

export const EVENT_SCOPES: readonly EventScope[] = [
  'packages',
  'sessions',
  'usage',
  'dispatches',
  'competency',
  'all',
]

/**
 * What `data` carries beyond the baseline fields:
 * - `baseline`: nothing (package.launched; usage events, whose entity fields are also null);
 * - `session`: the spec's session fields (null when the producer left one out) plus any extras;
 * - `producer`: whatever the producer recorded (the spec shows nothing beyond the baseline).
 */
export type DataShape = 'baseline' | 'session' | 'producer'

export interface DeliveredEvent {
  scope: Exclude<EventScope, 'all'>
  data: DataShape
  /** Usage events carry `entity_type` and `entity_id` null (spec, Events rule 1). */
  nullEntity?: boolean
  /** Competency and ROI events go only to live endpoints (spec, Events rule 4). */
  liveOnly?: boolean
}

/**
 * The spec's event table: ONLY these audit event types are delivered. Every other audit event
 * (package.created, package.version_created, package.restored, dispatch.updated,
 * dispatch.launched, webhook.*, …) stays in the audit log and is never sent. The competency scope
 * exists but the spec names no competency events yet, so it currently delivers nothing.
 */
export const DELIVERED_EVENTS: Readonly<Record<string, DeliveredEvent>> = {
  'package.launched': { scope: 'packages', data: 'baseline' },
  'package.archived': { scope: 'packages', data: 'producer' },
  'package.version_activated': { scope: 'packages', data: 'producer' },
  'session.completed': { scope: 'sessions', data: 'session' },
  'session.failed': { scope: 'sessions', data: 'session' },
  'session.suspended': { scope: 'sessions', data: 'session' },
  'usage.threshold_reached.70': { scope: 'usage', data: 'baseline', nullEntity: true },
  'usage.threshold_reached.90': { scope: 'usage', data: 'baseline', nullEntity: true },
  'usage.threshold_reached.100': { scope: 'usage', data: 'baseline', nullEntity: true },
  'dispatch.created': { scope: 'dispatches', data: 'producer' },
  'dispatch.paused': { scope: 'dispatches', data: 'producer' },
  'dispatch.resumed': { scope: 'dispatches', data: 'producer' },
  'dispatch.archived': { scope: 'dispatches', data: 'producer' },
  'dispatch.restored': { scope: 'dispatches', data: 'producer' },
  'dispatch.extended': { scope: 'dispatches', data: 'producer' },
  'dispatch.expired': { scope: 'dispatches', data: 'producer' },
  'dispatch.deleted': { scope: 'dispatches', data: 'producer' },
}

export const DELIVERED_EVENT_TYPES: readonly string[] = Object.keys(DELIVERED_EVENTS)

/** The type of the event `POST /webhooks/{id}/test` sends; never produced by the audit log. */
export const TEST_EVENT_TYPE = 'webhook.test'

/** Names from earlier descriptions that mean a current event (or group of events). */
const EARLIER_NAMES: Readonly<Record<string, readonly string[]>> = {
  'session.passed': ['session.completed'],
  'session.launched': ['package.launched'],
  'usage.threshold': [
    'usage.threshold_reached.70',
    'usage.threshold_reached.90',
    'usage.threshold_reached.100',
  ],
}

/** Names an `events` array may not contain because the spec says they are never delivered. */
const NEVER_DELIVERED: Readonly<Record<string, string>> = {
  'dispatch.updated': 'dispatch.updated is not delivered',
  'dispatch.launched': 'dispatch.launched is not delivered',
  'session.scored': 'score changes emit no events (commits emit none)',
  'session.score_updated': 'score changes emit no events (commits emit none)',
  'session.progress': 'progress emits no events (commits emit none)',
  'package.updated': 'use package.version_activated',
}

export type EventNamesResult =
  | { ok: true; types: string[] }
  | { ok: false; problems: Array<{ name: string; message: string }> }

/**
 * Expands an `events` array of the earlier body forms into current event types: exact names,
 * `*`, `<prefix>.*` wildcards (`session.*`, `usage.*`…) and the earlier names above.
 */
export function expandEventNames(names: readonly string[]): EventNamesResult {
  const types = new Set<string>()
  const problems: Array<{ name: string; message: string }> = []
  for (const raw of names) {
    const name = raw.trim()
    if (name === '*') {
      for (const t of DELIVERED_EVENT_TYPES) types.add(t)
    } else if (name.endsWith('.*')) {
      const prefix = name.slice(0, -1)
      const matched = DELIVERED_EVENT_TYPES.filter((t) => t.startsWith(prefix))
      if (matched.length === 0) problems.push({ name, message: 'matches no delivered event' })
      for (const t of matched) types.add(t)
    } else if (DELIVERED_EVENTS[name]) {
      types.add(name)
    } else if (EARLIER_NAMES[name]) {
      for (const t of EARLIER_NAMES[name]) types.add(t)
    } else {
      problems.push({ name, message: NEVER_DELIVERED[name] ?? 'unknown event name' })
    }
  }
  if (problems.length > 0) return { ok: false, problems }
  return { ok: true, types: DELIVERED_EVENT_TYPES.filter((t) => types.has(t)) }
}

/** The narrowest scope holding every type: their common scope, or `all`. */
export function scopeOfTypes(types: readonly string[]): EventScope {
  const scopes = new Set(types.map((t) => DELIVERED_EVENTS[t]?.scope ?? 'all'))
  const [only] = scopes
  return scopes.size === 1 && only ? only : 'all'
}

/** What an endpoint subscribes to, as stored. */
export interface Subscription {
  mode: Mode
  eventScope: EventScope
  /** Null: every delivered event of the scope. */
  eventTypes: readonly string[] | null
}

/**
 * Whether an audit event of `type` in `mode` goes to an endpoint with `sub`: a delivered type,
 * the same mode (test endpoints only get events marked test, live only live), within the scope
 * and the optional type list, and never a live-only event to a test endpoint.
 */
export function subscriptionMatches(sub: Subscription, type: string, mode: Mode): boolean {
  const event = DELIVERED_EVENTS[type]
  if (!event) return false
  if (sub.mode !== mode) return false
  if (event.liveOnly && sub.mode !== 'live') return false
  if (sub.eventScope !== 'all' && sub.eventScope !== event.scope) return false
  return sub.eventTypes === null || sub.eventTypes.includes(type)
}
