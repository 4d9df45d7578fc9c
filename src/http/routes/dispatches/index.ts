import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { AppContext } from '../../../context.ts'
import { scopeOf } from '../../plugins/api-key-auth.ts'
import { ApiKeySecurity, errorResponses, ZipBody } from '../../schemas/common.ts'
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
} from './dispatch.schemas.ts'

const TRANSITION_SUMMARIES = {
  pause: 'Pause launches (from active)',
  resume: 'Resume launches (from paused)',
  archive: 'Archive a dispatch: launches refused, restorable (from active, paused or expired)',
  restore: 'Restore an archived dispatch (to active, or expired when its expiry passed)',
} as const

// Long on purpose: a route plugin: one short registration per endpoint of this resource.
/**
 * Dispatches (docs/dispatch.md): create as the spec, and the list/read/update/lifecycle/delete/
 * export operations. Thin: validate → one service call → shape.
 */
export const dispatchRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (
  app,
  { ctx },
) => {
  const { dispatches } = ctx.services
  app.addSchema(Dispatch)
  const common = { tags: ['dispatches'], security: ApiKeySecurity }
  const DispatchRef = Type.Ref('Dispatch')

  app.post(
    '/dispatches',
    {
      schema: {
        ...common,
        operationId: 'createDispatch',
        summary: 'Create a dispatch of a package for one client LMS',
        description:
          'Returns the dispatch with its id and launchUrl. Export the wrapper package with ' +
          'GET /dispatches/{id}/package. Writes dispatch.created.',
        body: CreateDispatchBody,
        response: { 201: DispatchRef, ...errorResponses(400, 401, 404, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const dispatch = await dispatches.create(scopeOf(request), request.body)
      return reply.status(201).send(dispatch)
    },
  )

  app.get(
    '/dispatches',
    {
      schema: {
        ...common,
        operationId: 'listDispatches',
        summary: 'List dispatches, newest first (filters: package, tag, status)',
        querystring: DispatchListQuery,
        response: { 200: DispatchList, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const q = request.query
      return dispatches.list(scopeOf(request), {
        packageId: q.package_id ?? q.packageId,
        tag: q.tag,
        status: q.status,
        limit: q.limit,
        cursor: q.cursor,
      })
    },
  )

  app.get(
    '/dispatches/:dispatchId',
    {
      schema: {
        ...common,
        operationId: 'getDispatch',
        summary: 'A dispatch with its counts (unique learners, launches, completions, refusals)',
        params: DispatchParams,
        response: { 200: DispatchRef, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => dispatches.get(scopeOf(request), request.params.dispatchId),
  )

  app.patch(
    '/dispatches/:dispatchId',
    {
      schema: {
        ...common,
        operationId: 'updateDispatch',
        summary: 'Change name, licenseLimit, allowedDomains or tags',
        description:
          'Lowering licenseLimit below the learners already admitted keeps them in and admits ' +
          'no one new. Writes dispatch.updated (never delivered as a webhook).',
        params: DispatchParams,
        body: UpdateDispatchBody,
        response: { 200: DispatchRef, ...errorResponses(400, 401, 404, 409, 429) },
      },
    },
    async (request) => dispatches.update(scopeOf(request), request.params.dispatchId, request.body),
  )

  for (const action of ['pause', 'resume', 'archive', 'restore'] as const) {
    app.post(
      `/dispatches/:dispatchId/${action}`,
      {
        schema: {
          ...common,
          operationId: `${action}Dispatch`,
          summary: TRANSITION_SUMMARIES[action],
          description: `Writes dispatch.${action === 'pause' ? 'paused' : `${action}d`}. From any other status: 409 invalid_state.`,
          params: DispatchParams,
          response: { 200: DispatchRef, ...errorResponses(401, 404, 409, 429) },
        },
      },
      async (request) => dispatches[action](scopeOf(request), request.params.dispatchId),
    )
  }

  app.post(
    '/dispatches/:dispatchId/extend',
    {
      schema: {
        ...common,
        operationId: 'extendDispatch',
        summary: 'Move the expiry later (from active, paused or expired)',
        description:
          'An expired dispatch becomes active (or paused) again. Writes dispatch.extended.',
        params: DispatchParams,
        body: ExtendDispatchBody,
        response: { 200: DispatchRef, ...errorResponses(400, 401, 404, 409, 429) },
      },
    },
    async (request) =>
      dispatches.extend(scopeOf(request), request.params.dispatchId, request.body.expiresAt),
  )

  app.delete(
    '/dispatches/:dispatchId',
    {
      schema: {
        ...common,
        operationId: 'deleteDispatch',
        summary: 'Delete a dispatch: its wrapper stops launching; sessions keep their dispatch_id',
        description: 'Writes dispatch.deleted. The dispatch then answers 404.',
        params: DispatchParams,
        response: { 204: Type.Null(), ...errorResponses(401, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      await dispatches.delete(scopeOf(request), request.params.dispatchId)
      return reply.status(204).send(null)
    },
  )

  app.get(
    '/dispatches/:dispatchId/package',
    {
      schema: {
        ...common,
        operationId: 'exportDispatchPackage',
        summary: 'The wrapper package (SCORM 1.2 or 2004 zip) to import into the client LMS',
        params: DispatchParams,
        querystring: PackageQuery,
        produces: ['application/zip'],
        response: {
          200: ZipBody,
          ...errorResponses(400, 401, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const { scorm_version } = request.query
      const { filename, zip } = await dispatches.exportPackage(
        scopeOf(request),
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
        operationId: 'revokeDispatchWrappers',
        summary: 'Revoke every wrapper package exported so far (export a new one afterwards)',
        description:
          'Raises wrapperGeneration: launches from older wrapper packages are refused ' +
          '(reason wrapper_revoked). Learners keep their sessions. Writes ' +
          'dispatch.wrappers_revoked (never delivered as a webhook).',
        params: DispatchParams,
        response: { 200: DispatchRef, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => dispatches.revokeWrappers(scopeOf(request), request.params.dispatchId),
  )

  app.get(
    '/dispatches/:dispatchId/refusals',
    {
      schema: {
        ...common,
        operationId: 'listDispatchRefusals',
        summary: 'The latest refused launches of a dispatch with their reasons (up to 100)',
        params: DispatchParams,
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
        }),
        response: { 200: RefusalList, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) =>
      dispatches.refusals(scopeOf(request), request.params.dispatchId, request.query.limit),
  )
}
