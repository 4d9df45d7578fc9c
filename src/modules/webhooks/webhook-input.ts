import type { Mode } from '../../infra/db/schema.ts'
import { AppError } from '../../shared/app-error.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import {
  DELIVERED_EVENT_TYPES,
  DELIVERED_EVENTS,
  EVENT_SCOPES,
  type EventScope,
  expandEventNames,
  scopeOfTypes,
} from './webhook-events.ts'

/** `POST /webhooks` in the current form and the earlier/migration forms the spec mentions. */
export interface CreateWebhookInput {
  url: string
  secret?: string
  /** Alias of `secret`. */
  signingSecret?: string
  label?: string
  /** Earlier form of `label`. */
  description?: string
  eventScope?: string
  mode?: Mode
  /** Earlier form: must equal the key's tenant. */
  tenant_id?: string
  /** Earlier form: event names instead of a scope. */
  events?: string[]
  /** Earlier form: one event name. */
  event_type?: string
}

export interface UpdateWebhookInput {
  url?: string
  label?: string | null
  description?: string
  eventScope?: string
  events?: string[] | null
  event_type?: string
  status?: 'active' | 'disabled'
  mode?: Mode
  tenant_id?: string
}

export const SECRET_MIN_CHARS = 16
export const SECRET_MAX_CHARS = 512
const LABEL_MAX_CHARS = 200

function invalid(message: string, details?: unknown): AppError {
  return new AppError('validation_failed', message, details)
}

/** The key decides the tenant: a `tenant_id` in a body may only repeat it (mass assignment). */
export function checkTenant(scope: TenantScope, tenantId: string | undefined): void {
  if (tenantId !== undefined && tenantId !== scope.tenantId) {
    throw new AppError('tenant_mismatch', "tenant_id does not match the API key's tenant")
  }
}

/**
 * Endpoints live in one mode, like all data (DESIGN §5): a test key manages test endpoints, which
 * get test events only; a live key live ones. `mode` may repeat the key's mode, not change it.
 */
export function checkMode(scope: TenantScope, mode: Mode | undefined): void {
  if (mode !== undefined && mode !== scope.mode) {
    throw new AppError(
      'mode_mismatch',
      `This is a ${scope.mode} API key: it registers ${scope.mode} endpoints; use a ${mode} key for a ${mode} endpoint`,
    )
  }
}

export function checkSecret(secret: string): void {
  const chars = [...secret].length
  if (chars < SECRET_MIN_CHARS || chars > SECRET_MAX_CHARS) {
    throw invalid(
      `secret must be ${SECRET_MIN_CHARS} to ${SECRET_MAX_CHARS} characters (got ${chars})`,
    )
  }
}

function pickSecret(input: CreateWebhookInput): string {
  const { secret, signingSecret } = input
  if (secret !== undefined && signingSecret !== undefined && secret !== signingSecret) {
    throw invalid('secret and signingSecret are the same field; send one of them')
  }
  const value = secret ?? signingSecret
  if (value === undefined) throw invalid('secret (or signingSecret) is required')
  checkSecret(value)
  return value
}

function checkLabel(label: string | null | undefined): string | null {
  if (label === undefined || label === null) return null
  const trimmed = label.trim()
  if ([...trimmed].length > LABEL_MAX_CHARS) {
    throw invalid(`label must be at most ${LABEL_MAX_CHARS} characters`)
  }
  return trimmed || null
}

function isScope(value: string): value is EventScope {
  return (EVENT_SCOPES as readonly string[]).includes(value)
}

/**
 * Resolves the subscription from `eventScope` and/or event names. Names alone give their common
 * scope (or `all`); with a scope they must fall inside it. A list covering the whole scope is
 * stored as null ("every event of the scope", including ones added later).
 */
export function resolveSubscription(
  eventScope: string | undefined,
  names: readonly string[] | undefined,
): { eventScope: EventScope; eventTypes: string[] | null } {
  if (eventScope !== undefined && !isScope(eventScope)) {
    throw invalid(`eventScope must be one of ${EVENT_SCOPES.join(', ')}`)
  }
  if (names === undefined || names.length === 0) {
    if (eventScope === undefined) {
      throw invalid(
        'eventScope is required (one of packages, sessions, usage, dispatches, competency, all)',
      )
    }
    return { eventScope, eventTypes: null }
  }
  const expanded = expandEventNames(names)
  if (!expanded.ok) {
    throw invalid(
      `These event names cannot be subscribed to: ${expanded.problems.map((p) => `${p.name} (${p.message})`).join('; ')}`,
      expanded.problems,
    )
  }
  const scope = eventScope ?? scopeOfTypes(expanded.types)
  const outside = expanded.types.filter(
    (t) => scope !== 'all' && DELIVERED_EVENTS[t]?.scope !== scope,
  )
  if (outside.length > 0) {
    throw invalid(`Events outside the ${scope} scope: ${outside.join(', ')}`)
  }
  const wholeScope = DELIVERED_EVENT_TYPES.filter(
    (t) => scope === 'all' || DELIVERED_EVENTS[t]?.scope === scope,
  )
  const covers = wholeScope.every((t) => expanded.types.includes(t))
  return { eventScope: scope, eventTypes: covers ? null : expanded.types }
}

function namesOf(events: readonly string[] | null | undefined, eventType: string | undefined) {
  if (events == null && eventType === undefined) return undefined
  return [...(events ?? []), ...(eventType === undefined ? [] : [eventType])]
}

export interface NormalisedCreate {
  url: string
  secret: string
  label: string | null
  eventScope: EventScope
  eventTypes: string[] | null
}

/** Maps any accepted body form onto the current model; throws AppError on a bad body. */
export function normaliseCreate(scope: TenantScope, input: CreateWebhookInput): NormalisedCreate {
  checkTenant(scope, input.tenant_id)
  checkMode(scope, input.mode)
  const secret = pickSecret(input)
  const subscription = resolveSubscription(
    input.eventScope,
    namesOf(input.events, input.event_type),
  )
  return {
    url: input.url,
    secret,
    label: checkLabel(input.label ?? input.description),
    ...subscription,
  }
}

export interface NormalisedUpdate {
  url?: string
  label?: string | null
  status?: 'active' | 'disabled'
  subscription?: { eventScope: EventScope; eventTypes: string[] | null }
}

export function normaliseUpdate(scope: TenantScope, input: UpdateWebhookInput): NormalisedUpdate {
  checkTenant(scope, input.tenant_id)
  checkMode(scope, input.mode)
  const out: NormalisedUpdate = {}
  if (input.url !== undefined) out.url = input.url
  const label = input.label !== undefined ? input.label : input.description
  if (label !== undefined) out.label = checkLabel(label)
  if (input.status !== undefined) out.status = input.status
  const names = input.events === null ? [] : namesOf(input.events ?? undefined, input.event_type)
  if (input.eventScope !== undefined || names !== undefined) {
    if (input.eventScope === undefined && names !== undefined && names.length === 0) {
      throw invalid('events may only be cleared together with an eventScope')
    }
    out.subscription = resolveSubscription(input.eventScope, names)
  }
  return out
}
