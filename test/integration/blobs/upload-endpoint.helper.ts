import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { BlobStore } from '../../../src/infra/blobs/blob-store.ts'
import { verifyUploadToken } from '../../../src/infra/blobs/upload-token.ts'
import type { Clock } from '../../../src/shared/clock.ts'

/**
 * A bare stand-in for the service's `PUT /uploads/{token}` route, so the fs backend's upload
 * URLs can be exercised with a real HTTP PUT: verify the token, hold the request to the signed
 * headers, stream the body into the store.
 */
export async function startUploadEndpoint(options: {
  secret: string
  clock: Clock
  store: () => BlobStore
}): Promise<{ publicUrl: string; stop(): Promise<void> }> {
  const server = createServer((req, res) => {
    const reply = (status: number, message: string) => {
      res.writeHead(status, { 'content-type': 'text/plain' }).end(message)
    }
    const match = /^\/uploads\/([^/?]+)$/.exec(req.url ?? '')
    if (req.method !== 'PUT' || !match?.[1]) return reply(404, 'not found')
    const verdict = verifyUploadToken(options.secret, match[1], options.clock.now())
    if (!verdict.ok) return reply(403, verdict.reason)
    const { key, contentType, contentLength } = verdict.claims
    if (contentType !== undefined && req.headers['content-type'] !== contentType) {
      return reply(400, 'content-type differs from the signed one')
    }
    const declared = Number(req.headers['content-length'])
    if (contentLength !== undefined && declared !== contentLength) {
      return reply(400, 'content-length differs from the signed one')
    }
    options
      .store()
      .put(key, req, {
        ...(Number.isSafeInteger(declared) && { contentLength: declared }),
        ...(contentType && { contentType }),
      })
      .then(
        () => reply(200, ''),
        (err: unknown) => reply(400, String(err)),
      )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    publicUrl: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
