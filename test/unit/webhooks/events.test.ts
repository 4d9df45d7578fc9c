import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  DELIVERED_EVENT_TYPES,
  DELIVERED_EVENTS,
  expandEventNames,
  scopeOfTypes,
  subscriptionMatches,
} from '../../../src/modules/webhooks/webhook-events.ts'

describe('the event catalogue', () => {
  it('is exactly the spec’s event table, with its scopes', () => {
    assert.deepEqual(
      Object.fromEntries(DELIVERED_EVENT_TYPES.map((t) => [t, DELIVERED_EVENTS[t]?.scope])),
      {
        'package.launched': 'packages',
        'package.archived': 'packages',
        'package.version_activated': 'packages',
        'session.completed': 'sessions',
        'session.failed': 'sessions',
        'session.suspended': 'sessions',
        'usage.threshold_reached.70': 'usage',
        'usage.threshold_reached.90': 'usage',
        'usage.threshold_reached.100': 'usage',
        'dispatch.created': 'dispatches',
        'dispatch.paused': 'dispatches',
        'dispatch.resumed': 'dispatches',
        'dispatch.archived': 'dispatches',
        'dispatch.restored': 'dispatches',
        'dispatch.extended': 'dispatches',
        'dispatch.expired': 'dispatches',
        'dispatch.deleted': 'dispatches',
      },
    )
    for (const auditOnly of [
      'package.created',
      'package.version_created',
      'package.restored',
      'dispatch.updated',
      'dispatch.launched',
      'session.progress',
    ]) {
      assert.equal(DELIVERED_EVENTS[auditOnly], undefined, auditOnly)
    }
  })

  it('matches by mode, scope and event list', () => {
    const live = { mode: 'live' as const, eventScope: 'sessions' as const, eventTypes: null }
    assert.ok(subscriptionMatches(live, 'session.completed', 'live'))
    assert.ok(!subscriptionMatches(live, 'session.completed', 'test'), 'mode must match')
    assert.ok(!subscriptionMatches(live, 'package.archived', 'live'), 'scope')
    assert.ok(!subscriptionMatches(live, 'package.created', 'live'), 'audit-only')
    const test = { mode: 'test' as const, eventScope: 'all' as const, eventTypes: null }
    assert.ok(subscriptionMatches(test, 'dispatch.paused', 'test'))
    assert.ok(!subscriptionMatches(test, 'dispatch.paused', 'live'), 'test endpoints: test only')
    const narrowed = {
      mode: 'live' as const,
      eventScope: 'all' as const,
      eventTypes: ['session.failed'],
    }
    assert.ok(subscriptionMatches(narrowed, 'session.failed', 'live'))
    assert.ok(!subscriptionMatches(narrowed, 'session.completed', 'live'))
  })

  it('expands the earlier `events` forms', () => {
    assert.deepEqual(expandEventNames(['usage.*']), {
      ok: true,
      types: [
        'usage.threshold_reached.70',
        'usage.threshold_reached.90',
        'usage.threshold_reached.100',
      ],
    })
    assert.deepEqual(expandEventNames(['session.passed', 'session.launched']), {
      ok: true,
      types: ['package.launched', 'session.completed'],
    })
    const all = expandEventNames(['*'])
    assert.ok(all.ok && all.types.length === DELIVERED_EVENT_TYPES.length)
    const bad = expandEventNames(['dispatch.launched', 'nope.event'])
    assert.equal(bad.ok, false)
    assert.equal(scopeOfTypes(['session.failed', 'session.completed']), 'sessions')
    assert.equal(scopeOfTypes(['session.failed', 'package.archived']), 'all')
  })
})
