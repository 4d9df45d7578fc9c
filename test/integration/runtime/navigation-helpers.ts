import assert from 'node:assert/strict'
import {
  createRuntime,
  type Delta,
  type LaunchData,
} from '../../../src/modules/scorm/data-model/index.ts'
import type { TestApp } from '../../helpers/app.ts'

/** A delivery as `POST …/navigation` and `POST …/deliveries` answer it. */
export interface DeliveryJson {
  delivery_id: string
  item_id: string
  scorm_version: '1.2' | '2004'
  launch_data: LaunchData
  ui?: { toc: Array<{ id: string; selectable: boolean; current: boolean }> }
  request_valid?: {
    continue: boolean
    previous: boolean
    choice: Record<string, boolean>
    jump: Record<string, boolean>
  }
}

export interface NavigationJson {
  delivery: DeliveryJson | null
  ended: { reason: string; attempt_ended: boolean } | null
  ui: { toc: Array<{ id: string; selectable: boolean }> } | null
}

/**
 * The server-driven player over the real content-origin endpoints (docs/runtime-protocol.md):
 * `start`, then navigation requests, each SCO run with the real data model and its commits
 * posted before the next request (the outbox drains first).
 */
export async function startNavigator(t: TestApp, launchUrl: string) {
  const url = new URL(launchUrl)
  const sessionId = url.pathname.split('/').pop() as string
  const start = await t.content.inject({
    method: 'POST',
    url: `/runtime/sessions/${sessionId}/start`,
    payload: { token: url.searchParams.get('token') },
  })
  assert.equal(start.statusCode, 200, start.body)
  const started = start.json()
  const auth = { authorization: `Bearer ${started.runtime_token as string}` }
  return {
    sessionId,
    started,
    /** Posts a navigation request; the raw response (200 or 409). */
    request(body: Record<string, unknown>) {
      return t.content.inject({
        method: 'POST',
        url: `/runtime/sessions/${sessionId}/navigation`,
        headers: auth,
        payload: body,
      })
    },
    /** Posts a navigation request that must succeed. */
    async navigate(body: Record<string, unknown>): Promise<NavigationJson> {
      const res = await this.request(body)
      assert.equal(res.statusCode, 200, `${JSON.stringify(body)}: ${res.body}`)
      return res.json()
    },
    deliveries(itemId: string) {
      return t.content.inject({
        method: 'POST',
        url: `/runtime/sessions/${sessionId}/deliveries`,
        headers: auth,
        payload: { item_id: itemId },
      })
    },
    /** Runs a delivered SCO: its data model, and `finish` to post its commits. */
    run(delivery: DeliveryJson) {
      const sent: Delta[] = []
      const runtime = createRuntime({
        version: delivery.scorm_version,
        initial: delivery.launch_data,
        onCommit: (d: Delta) => {
          sent.push(d)
          return true
        },
      } as never) as ReturnType<typeof createRuntime>
      const api = runtime.api as unknown as Record<string, (...args: string[]) => string>
      return {
        runtime,
        api,
        /** Sets `values`, terminates and posts every commit, in order. */
        async finish(values: Record<string, string> = {}) {
          if (runtime.phase() !== 'running') api.Initialize?.('')
          for (const [element, value] of Object.entries(values)) {
            assert.equal(api.SetValue?.(element, value), 'true', `${element} = ${value}`)
          }
          if (runtime.phase() === 'running') api.Terminate?.('')
          await this.flush()
        },
        async flush() {
          for (const delta of sent.splice(0)) {
            const res = await t.content.inject({
              method: 'POST',
              url: `/runtime/sessions/${sessionId}/commits`,
              headers: auth,
              payload: { delivery_id: delivery.delivery_id, delta },
            })
            assert.equal(res.statusCode, 200, res.body)
          }
        },
      }
    },
  }
}

/** An `adl.nav.request` value as a navigation body (`{target=x}choice` → choice of x). */
export function navigationBody(value: string, deliveryId?: string): Record<string, unknown> {
  const m = /^\{target=([^}]*)\}(choice|jump)$/.exec(value.trim())
  const request = m ? { request: m[2], target: m[1] } : { request: value.trim() }
  return deliveryId ? { ...request, delivery_id: deliveryId } : request
}
