import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { AppContext } from '../../context.ts'
import { requirePermission } from '../../modules/accounts/roles.ts'
import {
  CreateDispatchBody,
  Dispatch,
  DispatchList,
  DispatchListQuery,
  DispatchParams,
  ExtendDispatchBody,
  PackageQuery,
  RefusalList,
  UpdateDispatchBody,
} from '../routes/dispatches/dispatch.schemas.ts'
import { errorResponses, ZipBody } from '../schemas/common.ts'
import { DashboardSecurity, ModeQuery } from './customer.schemas.ts'
import { customerOf, customerScope } from './customer-auth.ts'

const ModeOnly = Type.Object({ mode: ModeQuery })

/** The API's body without `tenant_id`: the signed-in user's tenant decides. */
const DashboardCreateDispatch = Type.Omit(CreateDispatchBody, ['tenant_id'], {
  additionalProperties: false,
})

const TRANSITIONS = {
  pause: ['Pause', 'Pause launches (from active)'],
  resume: ['Resume', 'Resume launches (from paused)'],
  archive: ['Archive', 'Archive: launches refused, restorable (from active, paused or expired)'],
  restore: ['Restore', 'Restore an archived dispatch'],
} as const

// Long on purpose: a route plugin: one short registration per endpoint of this resource.
/**
 * The dashboard's dispatch jobs (issue 12): the same DispatchService calls as /api/v1/dispatches,
 * in the mode of the page's switch. Reading (the wrapper zip included: its launch URL is in every
 * read already) is for everyone; changes need an admin or owner.
 */
export const customerDispatchRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (
  app,
  { ctx },
) => {
  const { dispatches } = ctx.services
  app.addSchema(Dispatch)
  const common = { tags: ['dashboard'], security: DashboardSecurity }
  const DispatchRef = Type.Ref('Dispatch')
  const manager = async (request: Parameters<typeof customerOf>[0]) => {
    requirePermission(customerOf(request).role, 'manage_content')
  }

  app.get(
    '/dispatches',
    {
      schema: {
        ...common,
        operationId: 'dashboardListDispatches',
        summary: 'Dispatches of the chosen mode, newest first, with seats used and refusals',
        querystring: Type.Object({ ...DispatchListQuery.properties, mode: ModeQuery }),
        response: { 200: DispatchList, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { mode, package_id, packageId, ...query } = request.query
      return dispatches.list(customerScope(request, mode), {
        ...query,
        packageId: package_id ?? packageId,
      })
    },
  )

  app.post(
    '/dispatches',
    {
      schema: {
        ...common,
        operationId: 'dashboardCreateDispatch',
        summary: 'Create a dispatch of a package for one client LMS',
        querystring: ModeOnly,
        body: DashboardCreateDispatch,
        response: { 201: DispatchRef, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
      preHandler: manager,
    },
    async (request, reply) => {
      const scope = customerScope(request, request.query.mode)
      return reply.status(201).send(await dispatches.create(scope, request.body))
    },
  )

  app.get(
    '/dispatches/:dispatchId',
    {
      schema: {
        ...common,
        operationId: 'dashboardGetDispatch',
        summary: 'A dispatch with its counts (seats used, launches, completions, refusals)',
        params: DispatchParams,
        querystring: ModeOnly,
        response: { 200: DispatchRef, ...errorResponses(401, 404) },
      },
    },
    async (request) =>
      dispatches.get(customerScope(request, request.query.mode), request.params.dispatchId),
  )

  app.patch(
    '/dispatches/:dispatchId',
    {
      schema: {
        ...common,
        operationId: 'dashboardUpdateDispatch',
        summary: 'Change name, licenseLimit, allowedDomains or tags',
        params: DispatchParams,
        querystring: ModeOnly,
        body: UpdateDispatchBody,
        response: { 200: DispatchRef, ...errorResponses(400, 401, 403, 404, 409) },
      },
      preHandler: manager,
    },
    async (request) =>
      dispatches.update(
        customerScope(request, request.query.mode),
        request.params.dispatchId,
        request.body,
      ),
  )

  for (const action of ['pause', 'resume', 'archive', 'restore'] as const) {
    const [verb, summary] = TRANSITIONS[action]
    app.post(
      `/dispatches/:dispatchId/${action}`,
      {
        schema: {
          ...common,
          operationId: `dashboard${verb}Dispatch`,
          summary,
          description: 'From any other status: 409 invalid_state.',
          params: DispatchParams,
          querystring: ModeOnly,
          response: { 200: DispatchRef, ...errorResponses(401, 403, 404, 409) },
        },
        preHandler: manager,
      },
      async (request) =>
        dispatches[action](customerScope(request, request.query.mode), request.params.dispatchId),
    )
  }

  app.post(
    '/dispatches/:dispatchId/extend',
    {
      schema: {
        ...common,
        operationId: 'dashboardExtendDispatch',
        summary: 'Move the expiry later, or remove it (null)',
        params: DispatchParams,
        querystring: ModeOnly,
        body: ExtendDispatchBody,
        response: { 200: DispatchRef, ...errorResponses(400, 401, 403, 404, 409) },
      },
      preHandler: manager,
    },
    async (request) =>
      dispatches.extend(
        customerScope(request, request.query.mode),
        request.params.dispatchId,
        request.body.expiresAt,
      ),
  )

  app.delete(
    '/dispatches/:dispatchId',
    {
      schema: {
        ...common,
        operationId: 'dashboardDeleteDispatch',
        summary: 'Delete a dispatch: its wrappers stop launching; sessions keep their dispatch id',
        params: DispatchParams,
        querystring: ModeOnly,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 409) },
      },
      preHandler: manager,
    },
    async (request, reply) => {
      await dispatches.delete(customerScope(request, request.query.mode), request.params.dispatchId)
      return reply.status(204).send(null)
    },
  )

  app.get(
    '/dispatches/:dispatchId/package',
    {
      schema: {
        ...common,
        operationId: 'dashboardExportDispatchPackage',
        summary: 'Download the wrapper package (SCORM 1.2 or 2004 zip) for the client LMS',
        params: DispatchParams,
        querystring: Type.Object({ ...PackageQuery.properties, mode: ModeQuery }),
        produces: ['application/zip'],
        response: { 200: ZipBody, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { mode, scorm_version } = request.query
      const { filename, zip } = await dispatches.exportPackage(
        customerScope(request, mode),
        request.params.dispatchId,
        scorm_version,
      )
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .header('cache-control', 'no-store')
        .send(zip)
    },
  )

  app.post(
    '/dispatches/:dispatchId/revoke-wrappers',
    {
      schema: {
        ...common,
        operationId: 'dashboardRevokeDispatchWrappers',
        summary: 'Revoke every wrapper exported so far; export a new one afterwards',
        description: 'Launches from older wrappers are refused (reason wrapper_revoked).',
        params: DispatchParams,
        querystring: ModeOnly,
        response: { 200: DispatchRef, ...errorResponses(401, 403, 404) },
      },
      preHandler: manager,
    },
    async (request) =>
      dispatches.revokeWrappers(
        customerScope(request, request.query.mode),
        request.params.dispatchId,
      ),
  )

  app.get(
    '/dispatches/:dispatchId/refusals',
    {
      schema: {
        ...common,
        operationId: 'dashboardListDispatchRefusals',
        summary: 'The latest refused launches of a dispatch with their reasons (up to 100)',
        params: DispatchParams,
        querystring: Type.Object({
          mode: ModeQuery,
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
        }),
        response: { 200: RefusalList, ...errorResponses(401, 404) },
      },
    },
    async (request) =>
      dispatches.refusals(
        customerScope(request, request.query.mode),
        request.params.dispatchId,
        request.query.limit,
      ),
  )
}
