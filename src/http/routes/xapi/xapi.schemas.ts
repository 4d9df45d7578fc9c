import { type Static, Type } from 'typebox'
import { NextCursor, NullableTimestamp, Timestamp } from '../../schemas/common.ts'

export const CredentialScope = Type.Union(
  [Type.Literal('all'), Type.Literal('all/read'), Type.Literal('statements/read')],
  {
    description:
      'all: read and write every xAPI resource; all/read: read every resource; ' +
      'statements/read: read statements only (default all)',
  },
)

export const XapiVersionSetting = Type.Union([Type.Literal('2.0.0'), Type.Literal('1.0.3')], {
  description:
    'The xAPI version that answers requests sent without X-Experience-API-Version (they are ' +
    'refused with 400 in that version): 1.0.3 for content made for xAPI 1.0.3 (default 2.0.0). ' +
    'Requests that name a version are answered in the version they name.',
})

export const CreateCredentialBody = Type.Object(
  {
    label: Type.Optional(
      Type.String({ maxLength: 200, description: 'Shown in listings and as the authority name' }),
    ),
    scope: Type.Optional(CredentialScope),
    xapi_version: Type.Optional(XapiVersionSetting),
  },
  { additionalProperties: false },
)

export const Credential = Type.Object(
  {
    id: Type.String({ description: 'xcr_…' }),
    key: Type.String({ description: 'The HTTP Basic user name for /xapi' }),
    label: Type.String(),
    scope: CredentialScope,
    xapi_version: XapiVersionSetting,
    mode: Type.Union([Type.Literal('live'), Type.Literal('test')]),
    created_at: Timestamp,
    revoked_at: NullableTimestamp,
  },
  { $id: 'XapiCredential', title: 'XapiCredential' },
)
export type Credential = Static<typeof Credential>

export const CreatedCredential = Type.Object({
  credential: Type.Ref('XapiCredential'),
  secret: Type.String({
    description: 'The HTTP Basic password; shown this once, stored only hashed',
  }),
  endpoint: Type.String({ description: 'The xAPI endpoint to configure in content' }),
})
export type CreatedCredential = Static<
  typeof CreatedCredential,
  { XapiCredential: typeof Credential }
>

export const CredentialList = Type.Object({
  credentials: Type.Array(Type.Ref('XapiCredential')),
  next_cursor: NextCursor,
})

export const StatementListQuery = Type.Object({
  agent: Type.Optional(
    Type.String({
      description: 'Actor or object agent: an xAPI Agent as JSON, or a bare mailto: IRI',
    }),
  ),
  verb: Type.Optional(Type.String({ description: 'Verb IRI' })),
  activity: Type.Optional(Type.String({ description: 'Object activity IRI' })),
  since: Type.Optional(
    Type.String({ format: 'date-time', description: 'Stored after (exclusive)' }),
  ),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'Stored at or before' })),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Page size (default 50)' }),
  ),
  cursor: Type.Optional(Type.String({ description: 'Opaque cursor from next_cursor' })),
  format: Type.Optional(
    Type.Union([Type.Literal('json'), Type.Literal('csv')], {
      description: 'csv: every matching statement as CSV (default json; Accept: text/csv too)',
    }),
  ),
})

export const StatementList = Type.Object({
  statements: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
    description: 'xAPI statements as stored, newest first; voided statements are left out',
  }),
  next_cursor: NextCursor,
})
