import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { AppContext } from '../../../context.ts'
import { scopeOf } from '../../plugins/api-key-auth.ts'
import { ApiKeySecurity, errorResponses } from '../../schemas/common.ts'
import { QuickPublishBody, QuickPublishResult } from './quick-publish.schemas.ts'

export const quickPublishRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (
  app,
  { ctx },
) => {
  app.addSchema(QuickPublishResult)
  app.post(
    '/quick-publish',
    {
      schema: {
        tags: ['course creation'],
        security: ApiKeySecurity,
        operationId: 'createScormCourse',
        summary: 'Create a hosted SCORM course from slides',
        description:
          'Builds a SCORM 2004 (default) or 1.2 package with its own player (navigation, table of contents, progress, resume, completion on the last slide), hosts it like an uploaded package, and returns a download link and a preview launch link. ' +
          'Images at image_url are fetched now through the outbound-request guard (https only, no private addresses, no redirects, size and time limits); a failed image fails the request with 422 naming the slide and URL.',
        body: QuickPublishBody,
        response: {
          201: Type.Ref('QuickPublishResult'),
          ...errorResponses(400, 401, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const result = await ctx.services.quickPublish.publish(scopeOf(request), request.body)
      return reply.status(201).send(result)
    },
  )
}
