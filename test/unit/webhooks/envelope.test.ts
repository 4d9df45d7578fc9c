import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  buildEnvelope,
  type EnvelopeSource,
} from '../../../src/modules/webhooks/webhook-envelope.ts'

const source = (over: Partial<EnvelopeSource>): EnvelopeSource => ({
  id: 'evt_1',
  tenantId: 'ten_1',
  mode: 'live',
  type: 'package.archived',
  entityType: 'package',
  entityId: 'pkg_1',
  severity: 'info',
  data: {},
  occurredAt: '2026-05-01T10:00:00.000Z',
  ...over,
})

describe('the webhook envelope', () => {
  it('has the spec’s fields in order, with the baseline first in data', () => {
    const body = JSON.parse(buildEnvelope(source({ data: { title: 'Course' } }), 'dlv_1'))
    assert.deepEqual(Object.keys(body), ['event', 'tenant_id', 'data', 'timestamp', 'delivery_id'])
    assert.deepEqual(body, {
      event: 'package.archived',
      tenant_id: 'ten_1',
      data: {
        audit_event_id: 'evt_1',
        event_plane: 'live',
        entity_type: 'package',
        entity_id: 'pkg_1',
        severity: 'info',
        title: 'Course',
      },
      timestamp: '2026-05-01T10:00:00.000Z',
      delivery_id: 'dlv_1',
    })
  })

  it('a producer cannot overwrite the baseline fields', () => {
    const body = JSON.parse(
      buildEnvelope(
        source({ data: { audit_event_id: 'x', severity: 'warn', entity_id: 'y' } }),
        'd',
      ),
    )
    assert.equal(body.data.audit_event_id, 'evt_1')
    assert.equal(body.data.severity, 'info')
    assert.equal(body.data.entity_id, 'pkg_1')
  })

  it('session events carry every spec field, null when the producer left it out', () => {
    const body = JSON.parse(
      buildEnvelope(
        source({
          type: 'session.suspended',
          entityType: 'session',
          data: { session_id: 'ses_1', score: { raw: 5 }, dispatch_id: 'dsp_1' },
        }),
        'd',
      ),
    )
    assert.deepEqual(body.data, {
      audit_event_id: 'evt_1',
      event_plane: 'live',
      entity_type: 'session',
      entity_id: 'pkg_1',
      severity: 'info',
      session_id: 'ses_1',
      package_id: null,
      learner_id: null,
      completion_status: null,
      success_status: null,
      progress_percent: null,
      score: { scaled: null, raw: 5, min: null, max: null },
      session_time: null,
      time_spent_seconds: null,
      updated_at: null,
      dispatch_id: 'dsp_1',
    })
  })

  it('usage events: baseline only, entity fields null; package.launched: baseline only', () => {
    const usage = JSON.parse(
      buildEnvelope(
        source({ type: 'usage.threshold_reached.100', mode: 'test', data: { n: 1 } }),
        'd',
      ),
    )
    assert.deepEqual(usage.data, {
      audit_event_id: 'evt_1',
      event_plane: 'test',
      entity_type: null,
      entity_id: null,
      severity: 'info',
    })
    const launched = JSON.parse(
      buildEnvelope(source({ type: 'package.launched', data: { x: 1 } }), 'd'),
    )
    assert.deepEqual(Object.keys(launched.data), [
      'audit_event_id',
      'event_plane',
      'entity_type',
      'entity_id',
      'severity',
    ])
  })
})
