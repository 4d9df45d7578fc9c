import type { AddressInfo } from 'node:net'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import type { TestDatabase } from '../../helpers/database.ts'

export interface LrsClient {
  key: string
  secret: string
  credentialId: string
  /** fetch against /xapi/{path} with Basic auth and an xAPI version (default 2.0.0). */
  xapi(path: string, init?: RequestInit & { version?: string | null }): Promise<Response>
}

export interface LrsTestServer {
  testApp: TestApp
  base: string
  tenant: TestTenant
  /** Creates a credential through the API with the given API key. */
  credential(apiKey: string, body?: Record<string, unknown>): Promise<LrsClient>
  close(): Promise<void>
}

/** The real application listening on 127.0.0.1, with one tenant. */
export async function startLrsTestServer(database: TestDatabase): Promise<LrsTestServer> {
  const testApp = await createTestApp(database)
  const tenant = await testApp.createTenant()
  await testApp.app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = testApp.app.server.address() as AddressInfo
  const base = `http://127.0.0.1:${port}`
  return {
    testApp,
    base,
    tenant,
    async credential(apiKey, body = {}) {
      const response = await fetch(`${base}/api/v1/xapi/credentials`, {
        method: 'POST',
        headers: { ...bearer(apiKey), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      if (response.status !== 201) throw new Error(`credential: ${response.status}`)
      const created = (await response.json()) as {
        credential: { id: string; key: string }
        secret: string
      }
      const auth = `Basic ${Buffer.from(`${created.credential.key}:${created.secret}`).toString('base64')}`
      return {
        key: created.credential.key,
        secret: created.secret,
        credentialId: created.credential.id,
        xapi(path, init = {}) {
          const { version = '2.0.0', headers, ...rest } = init
          const all: Record<string, string> = { authorization: auth }
          if (version !== null) all['x-experience-api-version'] = version
          return fetch(`${base}/xapi/${path}`, {
            ...rest,
            headers: { ...all, ...(headers as Record<string, string> | undefined) },
          })
        },
      }
    },
    close: () => testApp.close(),
  }
}

export function statement(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    actor: { mbox: 'mailto:learner@example.com', name: 'Learner' },
    verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } },
    object: { id: 'http://example.com/course/1', definition: { name: { 'en-US': 'Course' } } },
    ...overrides,
  }
}

export const JSON_HEADERS = { 'content-type': 'application/json' }
