import { type Static, Type } from 'typebox'
import {
  IdField,
  NextCursor,
  NullableTimestamp,
  TenantIdField,
  Timestamp,
} from '../../schemas/common.ts'

const Status = Type.Union(
  [
    Type.Literal('active'),
    Type.Literal('paused'),
    Type.Literal('expired'),
    Type.Literal('archived'),
  ],
  { description: 'active | paused | expired | archived (docs/dispatch.md: state machine)' },
)

const Domains = Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
  maxItems: 100,
  description:
    'Where the wrapper may be launched from: `lms.example.com` (that host only), ' +
    '`*.example.com` (its subdomains), optionally with `https://` and/or `:port`. ' +
    'Empty: anywhere.',
})
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 })
// minimum 0, not 1: with type coercion on, a 0 failing the integer branch would be coerced to
// null (no limit) by the null branch. The service refuses 0 itself.
const Limit = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
  description: 'Maximum number of unique learners who can launch (at least 1); null: no limit',
})

export const Dispatch = Type.Object(
  {
    id: Type.String({ description: 'Dispatch id (dsp_…)' }),
    packageId: Type.String(),
    name: Type.String(),
    status: Status,
    licenseLimit: Type.Union([Type.Integer(), Type.Null()]),
    expiresAt: NullableTimestamp,
    allowedDomains: Type.Array(Type.String(), { description: 'Normalised domain rules' }),
    tags: Type.Array(Type.String()),
    launchUrl: Type.String({
      description: 'The frame the wrapper package opens (content origin, signed token)',
    }),
    counts: Type.Object({
      uniqueLearners: Type.Integer({ description: 'Learners holding a licence seat' }),
      launches: Type.Integer(),
      completions: Type.Integer({ description: 'Distinct learners with a completed session' }),
      refusals: Type.Integer({ description: 'Launches refused' }),
      separatedLearners: Type.Integer({
        description:
          "Launches naming an already registered learner without that learner's key: each got " +
          'a separate learner id (docs/dispatch.md, learner keys)',
      }),
      rateLimited: Type.Integer({
        description: 'Launches refused because too many new learners started in one minute',
      }),
    }),
    wrapperGeneration: Type.Integer({
      description:
        'Raised by POST /dispatches/{id}/revoke-wrappers: only wrappers exported since launch',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    pausedAt: NullableTimestamp,
    archivedAt: NullableTimestamp,
  },
  { $id: 'Dispatch', title: 'Dispatch' },
)
export type Dispatch = Static<typeof Dispatch>

export const CreateDispatchBody = Type.Object(
  {
    packageId: IdField(),
    name: Type.String({ minLength: 1, maxLength: 255 }),
    licenseLimit: Type.Optional(Limit),
    expiresAt: Type.Optional(
      Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'Launches are refused after this instant; null or absent: never',
      }),
    ),
    allowedDomains: Type.Optional(Domains),
    tags: Type.Optional(Tags),
    tenant_id: Type.Optional(TenantIdField),
  },
  { additionalProperties: false },
)

export const UpdateDispatchBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    licenseLimit: Type.Optional(Limit),
    allowedDomains: Type.Optional(Domains),
    tags: Type.Optional(Tags),
  },
  {
    additionalProperties: false,
    description: 'Expiry changes go through POST /dispatches/{id}/extend',
  },
)

export const ExtendDispatchBody = Type.Object(
  {
    expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'Later than the current expiry (and in the future); null: never expires',
    }),
  },
  { additionalProperties: false },
)

export const DispatchParams = Type.Object({ dispatchId: Type.String() })

export const DispatchListQuery = Type.Object({
  package_id: Type.Optional(Type.String({ description: 'Only dispatches of this package' })),
  packageId: Type.Optional(Type.String({ description: 'Same as package_id' })),
  tag: Type.Optional(Type.String({ description: 'Only dispatches carrying this tag' })),
  status: Type.Optional(Status),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
})

export const DispatchList = Type.Object({
  dispatches: Type.Array(Type.Ref('Dispatch')),
  next_cursor: NextCursor,
})
/** With its `Type.Ref('Dispatch')` resolved: a bare `Static` leaves a Ref `unknown`. */
export type DispatchList = Static<typeof DispatchList, { Dispatch: typeof Dispatch }>

export const PackageQuery = Type.Object({
  scorm_version: Type.Optional(
    Type.Union([Type.Literal('1.2'), Type.Literal('2004')], {
      description: "SCORM version of the wrapper; default: the dispatched package's",
    }),
  ),
})

export const RefusalList = Type.Object({
  refusals: Type.Array(
    Type.Object({
      id: Type.String({ description: 'Audit event id (evt_…)' }),
      reason: Type.String({
        description:
          'paused | expired | archived | deleted | license_limit | domain_not_allowed | ' +
          'no_learner | package_unavailable | rate_limited | wrapper_revoked',
      }),
      origin: Type.Union([Type.String(), Type.Null()], {
        description: 'The launching LMS origin the browser reported',
      }),
      learnerId: Type.Union([Type.String(), Type.Null()]),
      occurredAt: Timestamp,
    }),
  ),
})
export type RefusalList = Static<typeof RefusalList>
/** One refused launch, as GET /dispatches/{id}/refusals lists it. */
export type DispatchRefusal = RefusalList['refusals'][number]
