import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { type Static, Type } from 'typebox'
import type { AppContext } from '../../context.ts'
import {
  ACTIVITY_DAYS,
  dailyActivity,
  recentEvents,
  usagePicture,
} from '../../modules/reports/activity.report.ts'
import { errorResponses, Timestamp } from '../schemas/common.ts'
import { DashboardSecurity, ModeQuery } from './customer.schemas.ts'
import { customerScope } from './customer-auth.ts'

const Count = Type.Integer({ minimum: 0 })

export const ActivityResponse = Type.Object({
  mode: Type.Union([Type.Literal('test'), Type.Literal('live')]),
  days: Type.Array(
    Type.Object({
      day: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
      launches: Count,
      completions: Count,
      new_active_learners: Type.Integer({
        description: 'Learners active for the first time in the billing period on this day',
      }),
    }),
    { description: 'One entry per day, oldest first, zeros included' },
  ),
  usage: Type.Object({
    billing_period: Type.String(),
    active_learners: Count,
    allotment: Type.Union([Type.Integer(), Type.Null()], {
      description: "The plan's active learners per billing period",
    }),
    thresholds: Type.Array(
      Type.Object({ percent: Type.Integer(), learners: Count, reached: Type.Boolean() }),
      { description: 'The 70, 90 and 100 % usage thresholds, which fire usage events' },
    ),
  }),
  recent_events: Type.Array(
    Type.Object({
      id: Type.String(),
      type: Type.String(),
      entity_type: Type.Union([Type.String(), Type.Null()]),
      entity_id: Type.Union([Type.String(), Type.Null()]),
      severity: Type.Union([Type.Literal('info'), Type.Literal('warn')]),
      occurred_at: Timestamp,
    }),
    { description: 'The latest 20 events, newest first' },
  ),
})
export type ActivityResponse = Static<typeof ActivityResponse>

/** The overview page's charts: activity per day, usage against the allotment, recent events. */
export const customerOverviewRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (
  app,
  { ctx },
) => {
  app.get(
    '/overview/activity',
    {
      schema: {
        tags: ['dashboard'],
        security: DashboardSecurity,
        operationId: 'dashboardActivity',
        summary: 'Launches, completions and new active learners per day; usage; recent events',
        querystring: Type.Object({
          mode: ModeQuery,
          days: Type.Optional(
            Type.Integer({
              minimum: 7,
              maximum: 90,
              default: ACTIVITY_DAYS,
              description: 'Window',
            }),
          ),
        }),
        response: { 200: ActivityResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const scope = customerScope(request, request.query.mode)
      const db = ctx.db.kysely
      const now = ctx.clock.now()
      const [days, usage, recent] = await Promise.all([
        dailyActivity(db, scope, now, request.query.days),
        usagePicture(db, scope, now),
        recentEvents(db, scope),
      ])
      return { mode: scope.mode, days, usage, recent_events: recent }
    },
  )
}
