import assert from 'node:assert/strict'
import yauzl from 'yauzl'
import { listAuditEvents } from '../../../src/modules/events/audit-event.repository.ts'
import { bearer, type TestApp } from '../../helpers/app.ts'

export interface DispatchRecord {
  id: string
  packageId: string
  name: string
  status: string
  licenseLimit: number | null
  expiresAt: string | null
  allowedDomains: string[]
  tags: string[]
  launchUrl: string
  counts: {
    uniqueLearners: number
    launches: number
    completions: number
    refusals: number
    separatedLearners: number
    rateLimited: number
  }
  wrapperGeneration: number
  createdAt: string
  updatedAt: string
}

export async function createDispatch(
  t: TestApp,
  key: string,
  body: Record<string, unknown>,
): Promise<DispatchRecord> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/dispatches',
    headers: bearer(key),
    payload: body,
  })
  assert.equal(res.statusCode, 201, res.body)
  return res.json()
}

export function api(t: TestApp, key: string) {
  return (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t.app.inject({
      method,
      url: `/api/v1${url}`,
      headers: bearer(key),
      ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
    })
}

/**
 * The frame page's launch call, as the browser makes it after the wrapper's hello: on the host
 * of the dispatch's launch URL (its tenant's content origin) unless `host` says otherwise, with
 * the learner key the wrapper keeps in the LMS when there is one.
 */
export function frameLaunch(
  t: TestApp,
  dispatch: Pick<DispatchRecord, 'id' | 'launchUrl'>,
  input: {
    origin: string
    learnerId: string
    learnerName?: string
    token?: string
    learnerKey?: string
    host?: string
  },
) {
  const url = new URL(dispatch.launchUrl)
  const token = input.token ?? (url.searchParams.get('token') as string)
  return t.content.inject({
    method: 'POST',
    url: `/dispatch/${dispatch.id}/launch`,
    headers: { host: input.host ?? url.host },
    payload: {
      token,
      origin: input.origin,
      learner_id: input.learnerId,
      ...(input.learnerName !== undefined && { learner_name: input.learnerName }),
      ...(input.learnerKey !== undefined && { learner_key: input.learnerKey }),
    },
  })
}

export async function dispatchEvents(t: TestApp, tenantId: string, dispatchId: string) {
  const events = await listAuditEvents(t.ctx.db.kysely, { tenantId, mode: 'test' }, dispatchId)
  return events.map((e) => ({ type: e.type, data: e.data, severity: e.severity }))
}

export const LMS_ORIGIN = 'https://lms.acme.example'

/** Every entry of a zip, as text. */
export function unzipText(zip: Buffer): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (err, file) => {
      if (err || !file) return reject(err)
      const out = new Map<string, string>()
      file.on('entry', (entry: yauzl.Entry) => {
        file.openReadStream(entry, (openErr, stream) => {
          if (openErr || !stream) return reject(openErr)
          const chunks: Buffer[] = []
          stream.on('data', (c: Buffer) => chunks.push(c))
          stream.on('end', () => {
            out.set(entry.fileName, Buffer.concat(chunks).toString('utf8'))
            file.readEntry()
          })
        })
      })
      file.on('end', () => resolve(out))
      file.on('error', reject)
      file.readEntry()
    })
  })
}
