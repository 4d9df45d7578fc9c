import assert from 'node:assert/strict'
import {
  createRuntime,
  type Delta,
  type LaunchData,
} from '../../../src/modules/scorm/data-model/index.ts'
import type { TestApp } from '../../helpers/app.ts'
import { bearer } from '../../helpers/app.ts'
import { fixture } from '../../helpers/fixtures.ts'
import { multipartFile } from '../../helpers/multipart.ts'

export async function uploadGolf(t: TestApp, key: string, file: string): Promise<string> {
  return uploadZip(t, key, fixture('scorm', 'golf', file))
}

/** Uploads a package zip; returns the new package's id. */
export async function uploadZip(t: TestApp, key: string, zip: Buffer): Promise<string> {
  const { payload, headers } = multipartFile(zip)
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/packages/upload',
    payload,
    headers: { ...headers, ...bearer(key) },
  })
  assert.equal(res.statusCode, 201, res.body)
  return res.json().package.id
}

export async function launch(t: TestApp, key: string, packageId: string, userId: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/packages/${packageId}/launch`,
    headers: bearer(key),
    payload: { user_id: userId },
  })
  assert.equal(res.statusCode, 200, res.body)
  return res.json() as {
    session_id: string
    launch_url: string
    learner_id: string
    attempt: number
  }
}

/** What the player does, over the real content-origin endpoints (docs/runtime-protocol.md). */
export async function startPlayer(t: TestApp, launchUrl: string) {
  const url = new URL(launchUrl)
  const sessionId = url.pathname.split('/').pop() as string
  const start = await t.content.inject({
    method: 'POST',
    url: `/runtime/sessions/${sessionId}/start`,
    payload: { token: url.searchParams.get('token') },
  })
  assert.equal(start.statusCode, 200, start.body)
  const started = start.json()
  const runtimeToken: string = started.runtime_token
  return {
    sessionId,
    started,
    async deliver(itemId: string) {
      const res = await t.content.inject({
        method: 'POST',
        url: `/runtime/sessions/${sessionId}/deliveries`,
        headers: { authorization: `Bearer ${runtimeToken}` },
        payload: { item_id: itemId },
      })
      assert.equal(res.statusCode, 200, res.body)
      const delivery = res.json() as {
        delivery_id: string
        scorm_version: '1.2' | '2004'
        launch_data: LaunchData
        data_model_options?: Record<string, number | boolean | undefined>
      }
      const sent: Delta[] = []
      const runtime = createRuntime({
        version: delivery.scorm_version,
        initial: delivery.launch_data,
        onCommit: (d: Delta) => {
          sent.push(d)
          return true
        },
      } as never) as ReturnType<typeof createRuntime>
      return {
        delivery,
        runtime,
        api: runtime.api as unknown as Record<string, (...args: string[]) => string>,
        /** Posts every delta produced since the last flush, in order. */
        async flush(options: { beacon?: boolean } = {}) {
          const out = []
          for (const delta of sent.splice(0)) {
            const res = await t.content.inject({
              method: 'POST',
              url: `/runtime/sessions/${sessionId}/commits`,
              ...(options.beacon
                ? {
                    headers: { 'content-type': 'text/plain;charset=UTF-8' },
                    payload: JSON.stringify({
                      token: runtimeToken,
                      delivery_id: delivery.delivery_id,
                      delta,
                    }),
                  }
                : {
                    headers: { authorization: `Bearer ${runtimeToken}` },
                    payload: { delivery_id: delivery.delivery_id, delta },
                  }),
            })
            assert.equal(res.statusCode, 200, res.body)
            out.push(res.json())
          }
          return out
        },
        post(delta: Delta) {
          return t.content.inject({
            method: 'POST',
            url: `/runtime/sessions/${sessionId}/commits`,
            headers: { authorization: `Bearer ${runtimeToken}` },
            payload: { delivery_id: delivery.delivery_id, delta },
          })
        },
      }
    },
  }
}
