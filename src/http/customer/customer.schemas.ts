import { type Static, Type } from 'typebox'
import { Timestamp } from '../schemas/common.ts'

/** The cookie security scheme's name in the OpenAPI document (plugins/openapi.ts). */
export const DashboardSecurity: Array<Record<string, string[]>> = [{ dashboardSession: [] }]

export const ModeQuery = Type.Optional(
  Type.Union([Type.Literal('test'), Type.Literal('live')], {
    description: "The dashboard's test/live switch: which mode's data to read (default test)",
  }),
)

export const Role = Type.Union([
  Type.Literal('owner'),
  Type.Literal('admin'),
  Type.Literal('viewer'),
])
export type Role = Static<typeof Role>

export const Me = Type.Object(
  {
    user: Type.Object({
      id: Type.String(),
      email: Type.String(),
      role: Role,
      tenant_id: Type.String(),
    }),
    csrf_token: Type.String({
      description: 'Send it as X-CSRF-Token on every POST, PUT, PATCH and DELETE',
    }),
  },
  { $id: 'DashboardMe', title: 'DashboardMe' },
)
export type Me = Static<typeof Me>

export const LoginBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
)

export const PasswordBody = Type.Object(
  {
    current_password: Type.String({ minLength: 1, maxLength: 1024 }),
    new_password: Type.String({ minLength: 10, maxLength: 256 }),
  },
  { additionalProperties: false },
)

export const InviteBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254 }),
    role: Role,
  },
  { additionalProperties: false },
)

export const InviteResponse = Type.Object({
  email: Type.String(),
  role: Role,
  invite_url: Type.String({ description: 'One-time link; shown once, no e-mail is sent' }),
  expires_at: Timestamp,
})
export type InviteResponse = Static<typeof InviteResponse>

export const PendingInvite = Type.Object({
  id: Type.String({ description: "The link token's hash: identifies the invite, never the link" }),
  email: Type.String(),
  role: Role,
  created_by: Type.Union([Type.String(), Type.Null()], {
    description: 'The inviting user; null when the CLI or the first start made it',
  }),
  created_at: Timestamp,
  expires_at: Timestamp,
})
export type PendingInvite = Static<typeof PendingInvite>

export const AcceptBody = Type.Object(
  { password: Type.String({ minLength: 10, maxLength: 256 }) },
  { additionalProperties: false },
)

const Rate = Type.Number({ minimum: 0, maximum: 1 })

export const ReportQuery = Type.Object({
  mode: ModeQuery,
  group: Type.Optional(
    Type.Union([Type.Literal('package'), Type.Literal('dispatch'), Type.Literal('learner')], {
      description: 'One line per package (default), per package and dispatch, or per learner',
    }),
  ),
  package_id: Type.Optional(Type.String({ maxLength: 255 })),
  dispatch_id: Type.Optional(Type.String({ maxLength: 255 })),
  learner_id: Type.Optional(
    Type.String({ maxLength: 255, description: 'With group=learner: one learner only' }),
  ),
  from: Type.Optional(
    Type.String({ format: 'date-time', description: 'Sessions started at or after' }),
  ),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Sessions started before' })),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1000,
      description: 'group=learner: lines per page (default 100)',
    }),
  ),
  cursor: Type.Optional(
    Type.String({ maxLength: 2048, description: 'group=learner: next_cursor of the last page' }),
  ),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')])),
})

export const ReportResponse = Type.Object({
  mode: Type.Union([Type.Literal('test'), Type.Literal('live')]),
  group: Type.Union([Type.Literal('package'), Type.Literal('dispatch'), Type.Literal('learner')]),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'group=learner: pass as cursor for the next page; null on the last page',
  }),
  packages: Type.Array(
    Type.Object({
      package_id: Type.String(),
      package_title: Type.Union([Type.String(), Type.Null()]),
      dispatch_id: Type.Optional(
        Type.Union([Type.String(), Type.Null()], {
          description: 'group=dispatch; null for sessions launched without a dispatch',
        }),
      ),
      learner_id: Type.Optional(Type.String({ description: 'group=learner' })),
      learner_name: Type.Optional(Type.String({ description: 'group=learner' })),
      learners: Type.Integer({
        description: 'Active learners: distinct learners with a session started in the range',
      }),
      attempts: Type.Integer({ description: 'Sessions started in the range' }),
      completion_rate: Rate,
      pass_rate: Type.Union([Rate, Type.Null()], {
        description: 'Passed ÷ attempts with a pass/fail verdict; null when none has one',
      }),
      average_score: Type.Union([Type.Number(), Type.Null()], {
        description: 'Mean scaled score (−1…1) of attempts that have one',
      }),
      average_time_seconds: Type.Number(),
      median_time_seconds: Type.Number({
        description:
          'Exact per learner; per package or dispatch from a time histogram, within 4.4 % ' +
          '(see the operation description)',
      }),
    }),
  ),
})
export type ReportResponse = Static<typeof ReportResponse>
/** One line of the report (a package, a package × dispatch, or a learner). */
export type ReportRow = ReportResponse['packages'][number]

export const OverviewResponse = Type.Object({
  mode: Type.Union([Type.Literal('test'), Type.Literal('live')]),
  packages: Type.Integer({ description: 'Packages that are not archived' }),
  active_learners: Type.Integer({ description: 'Active learners in the current billing period' }),
  billing_period: Type.String({ description: 'The calendar month in UTC, e.g. 2026-11' }),
  sessions_completed: Type.Integer({ description: 'Sessions completed since `since`' }),
  failing_webhooks: Type.Integer({
    description: 'Active endpoints with a failed or dead-lettered delivery since `since`',
  }),
  since: Timestamp,
})
export type OverviewResponse = Static<typeof OverviewResponse>
