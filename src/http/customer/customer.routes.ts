import { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../../context.ts'
import { AccountService, type NewSession } from '../../modules/accounts/account.service.ts'
import { learnerProgressCsv } from '../../modules/reports/learner-progress.csv.ts'
import {
  learnerProgress,
  learnerProgressAll,
} from '../../modules/reports/learner-progress.report.ts'
import { overview } from '../../modules/reports/overview.report.ts'
import { AppError } from '../../shared/app-error.ts'
import { ListQuery, Package, PackageList } from '../routes/packages/package.schemas.ts'
import { SessionDetail, SessionList, SessionListQuery } from '../routes/sessions/session.schemas.ts'
import { errorResponses } from '../schemas/common.ts'
import {
  AcceptBody,
  DashboardSecurity,
  InviteBody,
  InviteResponse,
  LoginBody,
  Me,
  ModeQuery,
  OverviewResponse,
  PasswordBody,
  ReportQuery,
  ReportResponse,
} from './customer.schemas.ts'
import {
  customerAuthHook,
  customerOf,
  customerScope,
  SESSION_COOKIE,
  sessionCookieOptions,
} from './customer-auth.ts'
import { customerDispatchRoutes } from './dispatches.routes.ts'
import { LoginThrottle } from './login-throttle.ts'
import { customerLrsCredentialRoutes } from './lrs-credentials.routes.ts'
import { customerOverviewRoutes } from './overview.routes.ts'
import { customerPackageRoutes } from './packages.routes.ts'
import { customerPublishRoutes } from './publish.routes.ts'
import { LEARNER_PROGRESS_DESCRIPTION } from './report.description.ts'
import { customerTeamRoutes } from './team.routes.ts'
import { customerWebhookRoutes } from './webhooks.routes.ts'

export interface CustomerRoutesOptions {
  ctx: AppContext
  /** Default: a service on ctx's database and clock with the documented expiry defaults. */
  accounts?: AccountService
  /** Default: LoginThrottle's documented defaults. */
  throttle?: LoginThrottle
}

function meOf(user: NewSession['user']) {
  return {
    user: { id: user.userId, email: user.email, role: user.role, tenant_id: user.tenantId },
    csrf_token: user.csrfToken,
  }
}

// Long on purpose: a route plugin: one short registration per endpoint of this resource.
/**
 * `/api/customer/*`: the dashboard's API (DESIGN §12). Same services and scopes as /api/v1;
 * only authentication differs: a session cookie plus X-CSRF-Token, never an API key.
 */
export const customerRoutes: FastifyPluginAsyncTypebox<CustomerRoutesOptions> = async (
  app,
  options,
) => {
  const { ctx } = options
  const accounts = options.accounts ?? new AccountService({ db: ctx.db.kysely, clock: ctx.clock })
  const throttle = options.throttle ?? new LoginThrottle(ctx.db.kysely, ctx.clock)
  const { packages, sessions } = ctx.services
  app.decorateRequest('customer', null)
  app.addHook('onRequest', customerAuthHook(accounts))
  app.addSchema(Me)
  app.addSchema(Package)
  app.addSchema(SessionDetail)
  const common = { tags: ['dashboard'], security: DashboardSecurity }
  const publicUrl = ctx.config.publicUrl
  await app.register(customerWebhookRoutes, { ctx })
  await app.register(customerPackageRoutes, { ctx })
  await app.register(customerOverviewRoutes, { ctx })
  await app.register(customerTeamRoutes, { ctx, accounts })
  await app.register(customerDispatchRoutes, { ctx })
  await app.register(customerPublishRoutes, { ctx })
  await app.register(customerLrsCredentialRoutes, { ctx })

  const signIn = (reply: FastifyReply, session: NewSession) => {
    reply.setCookie(SESSION_COOKIE, session.sessionId, sessionCookieOptions(publicUrl))
    return meOf(session.user)
  }

  app.post(
    '/login',
    {
      config: { customerPublic: true },
      schema: {
        tags: ['dashboard'],
        security: [],
        operationId: 'dashboardLogin',
        summary: 'Sign in with e-mail and password; sets the session cookie',
        description:
          'Failed attempts are throttled per account and per address (429 with Retry-After).',
        body: LoginBody,
        response: { 200: Type.Ref('DashboardMe'), ...errorResponses(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const { email, password } = request.body
      const wait = await throttle.waitSeconds(email, request.ip)
      if (wait !== null) {
        reply.header('retry-after', String(wait))
        throw new AppError('rate_limited', `Too many failed sign-ins; try again in ${wait} s`)
      }
      const session = await accounts.login(email, password)
      if (!session) {
        await throttle.recordFailure(email, request.ip)
        throw new AppError('unauthorized', 'Wrong e-mail or password')
      }
      return signIn(reply, session)
    },
  )

  app.post(
    '/logout',
    {
      schema: {
        ...common,
        operationId: 'dashboardLogout',
        summary: 'Sign out: the session is revoked at once',
        response: { 204: Type.Null(), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      await accounts.logout(customerOf(request))
      reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(publicUrl))
      return reply.status(204).send(null)
    },
  )

  app.get(
    '/me',
    {
      schema: {
        ...common,
        operationId: 'dashboardMe',
        summary: 'The signed-in user and the CSRF token of the session',
        response: { 200: Type.Ref('DashboardMe'), ...errorResponses(401) },
      },
    },
    async (request) => meOf(customerOf(request)),
  )

  app.post(
    '/password',
    {
      schema: {
        ...common,
        operationId: 'dashboardChangePassword',
        summary: "Change the signed-in user's password; other sessions are signed out",
        body: PasswordBody,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const { current_password, new_password } = request.body
      await accounts.changePassword(customerOf(request), current_password, new_password)
      return reply.status(204).send(null)
    },
  )

  app.post(
    '/invites',
    {
      schema: {
        ...common,
        operationId: 'dashboardInvite',
        summary:
          'Invite a user into the tenant (owners and admins; owners only by owners); returns a one-time link',
        body: InviteBody,
        response: { 201: InviteResponse, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const invite = await accounts.invite(customerOf(request), request.body)
      reply.status(201)
      return {
        email: invite.email,
        role: invite.role,
        invite_url: inviteUrl(publicUrl, invite.token),
        expires_at: invite.expiresAt,
      }
    },
  )

  app.post(
    '/invites/:token/accept',
    {
      config: { customerPublic: true },
      schema: {
        tags: ['dashboard'],
        security: [],
        operationId: 'dashboardAcceptInvite',
        summary: 'Use a one-time invite link: choose a password, get the user and a session',
        params: Type.Object({ token: Type.String({ maxLength: 128 }) }),
        body: AcceptBody,
        response: { 200: Type.Ref('DashboardMe'), ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request, reply) =>
      signIn(reply, await accounts.acceptInvite(request.params.token, request.body.password)),
  )

  app.get(
    '/packages',
    {
      schema: {
        ...common,
        operationId: 'dashboardListPackages',
        summary: 'Packages of the tenant in the chosen mode, newest first',
        querystring: Type.Object({ ...ListQuery.properties, mode: ModeQuery }),
        response: { 200: PackageList, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { mode, ...query } = request.query
      return packages.list(customerScope(request, mode), query)
    },
  )

  app.get(
    '/sessions',
    {
      schema: {
        ...common,
        operationId: 'dashboardListSessions',
        summary: 'Sessions, filtered and paged as GET /api/v1/sessions; CSV with format=csv',
        querystring: Type.Object({ ...SessionListQuery.properties, mode: ModeQuery }),
        produces: ['application/json', 'text/csv'],
        response: { 200: SessionList, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const { mode, format, limit, cursor, include, ...filter } = request.query
      const scope = customerScope(request, mode)
      if (format !== 'csv')
        return sessions.list(scope, { ...filter, limit, cursor, include: include ? [include] : [] })
      reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="sessions.csv"')
      return reply.send(Readable.from(sessions.csv(scope, filter)) as never)
    },
  )

  app.get(
    '/sessions/:sessionId',
    {
      schema: {
        ...common,
        operationId: 'dashboardGetSession',
        summary: 'A session with its runtime data, as GET /api/v1/sessions/{id}',
        params: Type.Object({ sessionId: Type.String() }),
        querystring: Type.Object({ mode: ModeQuery }),
        response: { 200: Type.Ref('SessionDetail'), ...errorResponses(401, 404) },
      },
    },
    async (request) =>
      sessions.get(customerScope(request, request.query.mode), request.params.sessionId),
  )

  app.get(
    '/overview',
    {
      schema: {
        ...common,
        operationId: 'dashboardOverview',
        summary: 'Landing figures: packages, active learners, completions, failing webhooks',
        querystring: Type.Object({ mode: ModeQuery }),
        response: { 200: OverviewResponse, ...errorResponses(401) },
      },
    },
    async (request) => {
      const scope = customerScope(request, request.query.mode)
      return { mode: scope.mode, ...(await overview(ctx.db.kysely, scope, ctx.clock.now())) }
    },
  )

  app.get(
    '/reports/learner-progress',
    {
      schema: {
        ...common,
        operationId: 'learnerProgressReport',
        summary: 'Learner progress: completion and pass rates, scores, time, active learners',
        description: LEARNER_PROGRESS_DESCRIPTION,
        querystring: ReportQuery,
        produces: ['application/json', 'text/csv'],
        response: { 200: ReportResponse, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const { mode, format, ...filter } = request.query
      const scope = customerScope(request, mode)
      if (format !== 'csv') {
        const report = await learnerProgress(ctx.db.kysely, scope, filter)
        return {
          mode: scope.mode,
          group: report.group,
          next_cursor: report.next_cursor,
          packages: report.rows,
        }
      }
      const report = await learnerProgressAll(ctx.db.kysely, scope, filter)
      reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="learner-progress.csv"')
      return reply.send(learnerProgressCsv(report) as never)
    },
  )
}

/** The dashboard page that accepts an invite (the token rides in the fragment, never logged). */
export function inviteUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/$/, '')}/dashboard/#invite=${token}`
}
