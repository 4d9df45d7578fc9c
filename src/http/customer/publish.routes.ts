import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { AppContext } from '../../context.ts'
import { requirePermission } from '../../modules/accounts/roles.ts'
import {
  ConversionJob,
  ConversionList,
  ConversionListQuery,
  JobIdParams,
  PresentationUpload,
} from '../routes/conversions/conversion.schemas.ts'
import {
  receivePresentation,
  scormVersionField,
  withRetryAfter,
} from '../routes/conversions/index.ts'
import {
  QuickPublishBody,
  QuickPublishResult,
} from '../routes/quick-publish/quick-publish.schemas.ts'
import { errorResponses } from '../schemas/common.ts'
import { DashboardSecurity, ModeQuery } from './customer.schemas.ts'
import { customerOf, customerScope } from './customer-auth.ts'

const ModeOnly = Type.Object({ mode: ModeQuery })

/** The API's body without `tenant_id`: the signed-in user's tenant decides. */
const DashboardQuickPublish = Type.Omit(QuickPublishBody, ['tenant_id'])

// Long on purpose: a route plugin: one short registration per endpoint of this resource.
/**
 * The dashboard's course creation (issue 12): quick publish and .pptx conversion through the same
 * QuickPublishService and ConversionService as /api/v1, in the mode of the page's switch. The page
 * polls a conversion job for its live status. Creating needs an admin or owner.
 */
export const customerPublishRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (
  app,
  { ctx },
) => {
  const { quickPublish, conversions } = ctx.services
  app.addSchema(QuickPublishResult)
  app.addSchema(ConversionJob)
  const common = { tags: ['dashboard'], security: DashboardSecurity }
  const manager = async (request: Parameters<typeof customerOf>[0]) => {
    requirePermission(customerOf(request).role, 'manage_content')
  }

  app.post(
    '/quick-publish',
    {
      schema: {
        ...common,
        operationId: 'dashboardQuickPublish',
        summary: 'Create a hosted SCORM course from slides (as POST /api/v1/quick-publish)',
        description:
          'The package appears in the packages of the chosen mode; the answer carries a signed ' +
          'download link and a preview launch link.',
        querystring: ModeOnly,
        body: DashboardQuickPublish,
        response: { 201: Type.Ref('QuickPublishResult'), ...errorResponses(400, 401, 403, 422) },
      },
      preHandler: manager,
    },
    async (request, reply) => {
      const scope = customerScope(request, request.query.mode)
      return reply.status(201).send(await quickPublish.publish(scope, request.body))
    },
  )

  app.post(
    '/conversions',
    {
      schema: {
        ...common,
        operationId: 'dashboardCreateConversion',
        summary: 'Convert a PowerPoint file (multipart, field "file") into a hosted package',
        description:
          'Answers 201 with the queued job; poll dashboardGetConversion for its progress. ' +
          'A used-up monthly allowance is 429 with Retry-After.',
        querystring: ModeOnly,
        body: { content: { 'multipart/form-data': { schema: PresentationUpload } } },
        response: {
          201: Type.Ref('ConversionJob'),
          ...errorResponses(400, 401, 403, 413, 415, 422, 429),
        },
      },
      preHandler: manager,
    },
    async (request, reply) => {
      const scope = customerScope(request, request.query.mode)
      const file = await receivePresentation(request)
      try {
        const job = await conversions.create(scope, {
          filePath: file.path,
          filename: file.filename,
          title: file.fields.title,
          scormVersion: scormVersionField(file.fields.scorm_version),
        })
        return reply.status(201).send(job)
      } catch (err) {
        return withRetryAfter(reply, err)
      } finally {
        await file.dispose()
      }
    },
  )

  app.get(
    '/conversions',
    {
      schema: {
        ...common,
        operationId: 'dashboardListConversions',
        summary: 'Conversion jobs of the chosen mode, newest first',
        querystring: Type.Intersect([ConversionListQuery, ModeOnly]),
        response: { 200: ConversionList, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { mode, ...query } = request.query
      return conversions.list(customerScope(request, mode), query)
    },
  )

  app.get(
    '/conversions/:jobId',
    {
      schema: {
        ...common,
        operationId: 'dashboardGetConversion',
        summary: 'Status, progress and outcome of a conversion job',
        params: JobIdParams,
        querystring: ModeOnly,
        response: { 200: Type.Ref('ConversionJob'), ...errorResponses(401, 404) },
      },
    },
    async (request) =>
      conversions.get(customerScope(request, request.query.mode), request.params.jobId),
  )
}
