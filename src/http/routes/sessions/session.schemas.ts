import { Type } from 'typebox'
import { NextCursor, NullableTimestamp, Timestamp } from '../../schemas/common.ts'

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
  session_id: Type.Optional(
    Type.String({ description: 'Migration form: launch into this existing session' }),
  ),
})

export const LaunchResponse = Type.Object({
  session_id: Type.String(),
  launch_url: Type.String({ description: 'Signed, expiring; works directly or in an iframe' }),
  package_id: Type.String(),
  learner_id: Type.String(),
  attempt: Type.Integer(),
  expires_at: Timestamp,
})

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
  },
  { $id: 'SessionDetail', title: 'Session' },
)

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
  session_time: Type.Union([Type.String(), Type.Null()]),
  time_spent_seconds: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
})

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
})

export const SessionList = Type.Object({
  sessions: Type.Array(SessionListItem),
  next_cursor: NextCursor,
})
