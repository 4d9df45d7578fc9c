import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  applyAttempt,
  DELIVERY_TIMEOUT_MS,
  MAX_ATTEMPTS,
  webhookTiming,
} from '../../../src/modules/webhooks/delivery-policy.ts'

const at = new Date('2026-05-01T00:00:00.000Z')
const response = (statusCode: number) => ({ kind: 'response' as const, statusCode })
const later = (seconds: number) => new Date(at.getTime() + seconds * 1000)

describe('the delivery state table', () => {
  it('2xx → delivered, on any attempt', () => {
    for (const code of [200, 201, 202, 204, 299]) {
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        assert.deepEqual(applyAttempt(attempt, response(code), at), {
          status: 'delivered',
          nextAttemptAt: null,
          outcome: 'delivered',
        })
      }
    }
  })

  it('404 and 410 → dead_letter at once', () => {
    for (const code of [404, 410]) {
      assert.equal(applyAttempt(1, response(code), at).status, 'dead_letter')
    }
  })

  it('other answers, redirects, timeouts and errors → failed, next attempt after 60 s / 5 / 15 / 60 min', () => {
    const failures = [
      response(500),
      response(503),
      response(400),
      response(401),
      response(301),
      response(302),
      response(307),
      response(100),
      { kind: 'error' as const, message: 'timeout' },
    ]
    for (const result of failures) {
      assert.deepEqual(
        [1, 2, 3, 4].map((n) => applyAttempt(n, result, at)),
        [60, 300, 900, 3600].map((s) => ({
          status: 'failed',
          nextAttemptAt: later(s),
          outcome: 'failed',
        })),
      )
    }
  })

  it('the 5th failure → dead_letter', () => {
    assert.deepEqual(applyAttempt(5, response(500), at), {
      status: 'dead_letter',
      nextAttemptAt: null,
      outcome: 'dead_letter',
    })
    assert.equal(MAX_ATTEMPTS, 5)
  })

  it('the receiver gets 30 s, and every lease outlives that with a margin', () => {
    assert.equal(DELIVERY_TIMEOUT_MS, 30_000)
    const t = webhookTiming()
    assert.equal(t.timeoutMs, 30_000)
    assert.ok(t.deliveryLeaseSeconds >= 30 + 30, `${t.deliveryLeaseSeconds}`)
    assert.ok(t.senderLeaseSeconds * 1000 >= t.senderBudgetMs + t.timeoutMs + 30_000)
    assert.ok(t.fanoutLeaseSeconds * 1000 > t.fanoutBudgetMs)
  })
})
