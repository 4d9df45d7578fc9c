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
