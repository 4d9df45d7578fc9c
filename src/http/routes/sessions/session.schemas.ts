import { type Static, Type } from 'typebox'
import {
  IdField,
  NextCursor,
  NullableTimestamp,
  TenantIdField,
  Timestamp,
} from '../../schemas/common.ts'

const Completion = Type.Union([
  Type.Literal('completed'),
  Type.Literal('incomplete'),
  Type.Literal('not attempted'),
])
const Success = Type.Union([
  Type.Literal('passed'),
  Type.Literal('failed'),
  Type.Literal('unknown'),
])
const Num = Type.Union([Type.Number(), Type.Null()])
const Score = Type.Object({ scaled: Num, raw: Num, min: Num, max: Num })

export const LaunchBody = Type.Object({
  user_id: Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'Learner email or identifier',
  }),
  learner_name: Type.Optional(Type.String({ maxLength: 255, description: 'Shown to the course' })),
  session_id: Type.Optional(IdField('Migration form: launch into this existing session')),
  tenant_id: Type.Optional(TenantIdField),
})

export const LaunchResponse = Type.Object({
  session_id: Type.String(),
  launch_url: Type.String({ description: 'Signed, expiring; works directly or in an iframe' }),
  package_id: Type.String(),
  learner_id: Type.String(),
  attempt: Type.Integer(),
  expires_at: Timestamp,
})
export type LaunchResponse = Static<typeof LaunchResponse>

/** cmi5 and Tin Can sessions: a summary of the statements of their registration. */
const XapiSummary = Type.Object(
  {
    registration: Type.String({ description: 'The xAPI registration of the session' }),
    statement_count: Type.Integer(),
    first_statement_at: NullableTimestamp,
    last_statement_at: NullableTimestamp,
    last_verb: Type.Union([Type.String(), Type.Null()], { description: 'Verb id of the newest' }),
  },
  { description: 'cmi5 and Tin Can sessions only: their statements in the built-in LRS' },
)

const Known = <T extends string[]>(...values: T) =>
  Type.Union([...values, 'unknown'].map((v) => Type.Literal(v)))

/** SCORM 2004 sessions: the sequencing engine's view of the attempt (issue 14.6). */
const SequencingView = Type.Object(
  {
    objectives_global_to_system: Type.Boolean({
      description: "Global objectives are the learner's across courses (else this attempt's)",
    }),
    activities: Type.Array(
      Type.Object({
        id: Type.String(),
        title: Type.String(),
        parent: Type.Union([Type.String(), Type.Null()], { description: 'null for the root' }),
        attempts: Type.Integer({ description: 'Activity attempt count' }),
        completion_status: Known('completed', 'incomplete'),
        success_status: Known('passed', 'failed'),
        measure: Type.Union([Type.Number(), Type.Null()], {
          description: "The primary objective's normalized measure (-1..1)",
        }),
        progress_measure: Type.Union([Type.Number(), Type.Null()]),
        suspended: Type.Boolean(),
      }),
      { description: 'Preorder, the root (organization) first' },
    ),
    global_objectives: Type.Array(
      Type.Object({
        id: Type.String(),
        success_status: Known('passed', 'failed'),
        measure: Num,
        completion_status: Known('completed', 'incomplete'),
        progress_measure: Num,
        score: Type.Object({ raw: Num, min: Num, max: Num }),
      }),
    ),
  },
  { description: 'SCORM 2004 sessions only: activity statuses and global objectives' },
)

export const SessionDetail = Type.Object(
  {
    session: Type.Object({
      session_id: Type.String(),
      completion_status: Completion,
      success_status: Success,
      score: Type.Object({ scaled: Num, raw: Num }),
    }),
    id: Type.String(),
    session_id: Type.String(),
    package_id: Type.String(),
    user_id: Type.String(),
    learner_id: Type.String(),
    learner_name: Type.String(),
    completion_status: Completion,
    success_status: Success,
    score: Score,
    progress_percent: Type.Number(),
    session_time: Type.Union([Type.String(), Type.Null()], { description: 'ISO 8601 duration' }),
    total_time: Type.String({ description: 'ISO 8601 duration over all launches' }),
    time_spent_seconds: Type.Integer(),
    updated_at: Timestamp,
    created_at: Timestamp,
    completed_at: NullableTimestamp,
    version_id: Type.String(),
    dispatch_id: Type.Union([Type.String(), Type.Null()]),
    attempt: Type.Integer(),
    scorm_version: Type.Union([Type.String(), Type.Null()]),
    suspended: Type.Boolean(),
    launch_count: Type.Integer(),
    scos: Type.Array(
      Type.Object({
        item_id: Type.String(),
        completion_status: Type.String(),
        success_status: Type.String(),
        score: Score,
        progress_measure: Num,
        total_time: Type.Union([Type.String(), Type.Null()]),
        updated_at: Timestamp,
      }),
    ),
    cmi_data: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Runtime data: element → value (one SCO), or item id → elements (several)',
    }),
    xapi: Type.Optional(XapiSummary),
    sequencing: Type.Optional(SequencingView),
  },
  { $id: 'SessionDetail', title: 'Session' },
)
export type SessionDetail = Static<typeof SessionDetail>

export const SessionListItem = Type.Object({
  id: Type.String(),
  session_id: Type.String(),
  package_id: Type.String(),
  user_id: Type.String(),
  learner_id: Type.String(),
  dispatch_id: Type.Union([Type.String(), Type.Null()]),
  attempt: Type.Integer(),
  completion_status: Completion,
  success_status: Success,
  score: Score,
  progress_percent: Type.Number(),
  session_time: Type.Union([Type.String(), Type.Null()], { description: 'ISO 8601 duration' }),
  time_spent_seconds: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
  cmi_data: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        'With include=cmi_data: runtime data as GET /sessions/{id} gives it (element → value ' +
        'for one SCO, item id → elements for several)',
    }),
  ),
  xapi: Type.Optional(XapiSummary),
})
export type SessionListItem = Static<typeof SessionListItem>

export const SessionListQuery = Type.Object({
  package_id: Type.Optional(Type.String()),
  learner_id: Type.Optional(Type.String()),
  dispatch_id: Type.Optional(Type.String()),
  completion_status: Type.Optional(Completion),
  success_status: Type.Optional(Success),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Started at or after' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Started before' })),
  sort: Type.Optional(Type.Union([Type.Literal('created_at'), Type.Literal('updated_at')])),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String()),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')])),
  include: Type.Optional(
    Type.Literal('cmi_data', {
      description: 'cmi_data: each session carries its runtime data (JSON only; CSV unchanged)',
    }),
  ),
})

export const SessionList = Type.Object({
  sessions: Type.Array(SessionListItem),
  next_cursor: NextCursor,
})
export type SessionList = Static<typeof SessionList>
