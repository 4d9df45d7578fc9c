import type { FastifyRequest } from 'fastify'

/** Paths whose segment after the prefix is a credential: content, uploads, quick-publish links. */
const PATH_TOKEN = /^(\/(?:c|uploads|downloads)\/)[^/?#]+/
/** Query parameters that carry a credential (launch tokens, presigned-URL signatures). */
const QUERY_TOKEN =
  /([?&](?:token|[a-z_-]*_token|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token|api_key|key)=)[^&#]*/gi

export const REDACTED = '[redacted]'

/**
 * A request target fit for a log line or an error message: every token, in the path
 * (`/c/{token}/…`, `/uploads/{token}`, `/downloads/{token}`) or the query (`?token=…`), is
 * replaced by `[redacted]`; everything else is kept for debugging.
 */
export function redactUrl(url: string): string {
  return url.replace(PATH_TOKEN, `$1${REDACTED}`).replace(QUERY_TOKEN, `$1${REDACTED}`)
}

/**
 * Pino serializers for both origins: Fastify's default request serializer, but with the URL
 * redacted, so an info-level "incoming request" line never holds a usable token.
 */
export const logSerializers = {
  req(request: FastifyRequest) {
    return {
      method: request.method,
      url: redactUrl(request.url),
      host: request.host,
      remoteAddress: request.ip,
      remotePort: request.socket?.remotePort,
    }
  },
}
