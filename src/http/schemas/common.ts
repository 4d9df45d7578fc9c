import type { Readable } from 'node:stream'
import { type TSchema, Type } from 'typebox'

/** The one error body (DESIGN §11). */
export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Stable machine-readable code, e.g. package_not_found' }),
      message: Type.String({ description: 'What went wrong, for a person' }),
      details: Type.Optional(Type.Unknown()),
    }),
  },
  { $id: 'ErrorBody', title: 'Error' },
)

export const errorResponses = (...statuses: number[]): Record<number, TSchema> =>
  Object.fromEntries(statuses.map((s) => [s, Type.Ref('ErrorBody')]))

export const PaginationQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size (default 50)' }),
  ),
  cursor: Type.Optional(
    Type.String({ description: 'Opaque cursor from next_cursor of the previous page' }),
  ),
})

export const NextCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'Pass as cursor to get the next page; null on the last page',
})

export const Timestamp = Type.String({ format: 'date-time' })
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()])

export const ApiKeySecurity: Array<Record<string, string[]>> = [
  { bearerAuth: [] },
  { apiKeyHeader: [] },
]

/**
 * A zip sent as the body (a stream or a buffer; Fastify does not serialise either). Documented
 * as binary; typed as what handlers really send.
 */
export const ZipBody = Type.Unsafe<Readable | Buffer>({
  type: 'string',
  format: 'binary',
  contentMediaType: 'application/zip',
})

/**
 * `tenant_id` in a body (the spec's presigned-upload form, and accepted everywhere else): it may
 * only repeat the API key's tenant; any other value is a 403 (plugins/tenant-guard.ts).
 */
export const TenantIdField = Type.String({
  maxLength: 64,
  description: "Must equal the API key's tenant when given; the key decides (403 otherwise)",
})

/** An id the client names in a body (package, session, storage path): bounded like any text. */
export const IdField = (description?: string) =>
  Type.String({ minLength: 1, maxLength: 255, ...(description && { description }) })

/** A signed token in the path (presigned upload, download link): the token is the credential. */
export const TokenParams = Type.Object({ token: Type.String({ maxLength: 2048 }) })
