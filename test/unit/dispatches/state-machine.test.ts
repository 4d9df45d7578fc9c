import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  type DispatchAction,
  type DispatchStatus,
  effectiveStatus,
  statusRefusal,
  TRANSITIONS,
  transition,
} from '../../../src/modules/dispatches/dispatch.state-machine.ts'

const STATUSES: DispatchStatus[] = ['active', 'paused', 'expired', 'archived', 'deleted']

test('the transition table, exhaustively (docs/dispatch.md)', () => {
  const expected: Record<DispatchAction, Partial<Record<DispatchStatus, string>>> = {
    pause: { active: 'paused' },
    resume: { paused: 'active' },
    archive: { active: 'archived', paused: 'archived', expired: 'archived' },
    restore: { archived: 'active' },
    extend: { active: 'active', paused: 'paused', expired: 'active' },
    update: { active: 'active', paused: 'paused', expired: 'active', archived: 'archived' },
    delete: { active: 'deleted', paused: 'deleted', expired: 'deleted', archived: 'deleted' },
  }
  for (const action of Object.keys(TRANSITIONS) as DispatchAction[]) {
    for (const status of STATUSES) {
      // The stored lifecycle behind "expired" is active here (paused behaves the same).
      const stored = status === 'expired' ? 'active' : status
      const result = transition(stored, status, action)
      const want = expected[action][status]
      if (want) assert.deepEqual(result.ok && result.to, want, `${action} from ${status}`)
      else assert.equal(result.ok, false, `${action} from ${status} must be refused`)
    }
  }
  const paused = transition('paused', 'expired', 'extend')
  assert.ok(paused.ok && paused.to === 'paused', 'an expired paused dispatch extends to paused')
})

test('expired is derived from the clock, only for active and paused dispatches', () => {
  const now = new Date('2026-01-01T00:00:00Z')
  const at = (expires_at: string | null, status: 'active' | 'paused' | 'archived' | 'deleted') =>
    effectiveStatus({ status, expires_at }, now)
  assert.equal(at('2026-01-01T00:00:00.000Z', 'active'), 'expired')
  assert.equal(at('2026-01-01T00:00:00.001Z', 'active'), 'active')
  assert.equal(at('2025-01-01T00:00:00.000Z', 'paused'), 'expired')
  assert.equal(at('2025-01-01T00:00:00.000Z', 'archived'), 'archived')
  assert.equal(at(null, 'active'), 'active')
  assert.equal(statusRefusal('active'), null)
  for (const s of ['paused', 'expired', 'archived', 'deleted'] as const) {
    assert.equal(statusRefusal(s), s)
  }
})
