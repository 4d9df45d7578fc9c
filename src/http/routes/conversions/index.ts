import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../../../context.ts'
import { AppError, isAppError } from '../../../shared/app-error.ts'
import { scopeOf } from '../../plugins/api-key-auth.ts'
import { receiveMultipartFile } from '../../receive-upload.ts'
import { ApiKeySecurity, errorResponses } from '../../schemas/common.ts'
import {
  ConversionJob,
  ConversionList,
  ConversionListQuery,
  JobIdParams,
  PresentationUpload,
} from './conversion.schemas.ts'

export async function receivePresentation(request: FastifyRequest) {
  if (!request.isMultipart()) {
    throw new AppError(
      'unsupported_media_type',
      'Send the presentation as multipart/form-data in field "file"',
    )
  }
  try {
    return await receiveMultipartFile(request, PresentationUpload)
  } catch (err) {
    if (isAppError(err) && err.code === 'validation_failed' && err.message.startsWith('No file')) {
      throw new AppError('validation_failed', 'No file: send the .pptx in field "file"')
    }
    throw err
  }
}

export function scormVersionField(value: string | undefined): '1.2' | '2004' {
  if (value === undefined || value === '') return '2004'
  if (value === '1.2' || value === '2004') return value
  throw new AppError('validation_failed', `scorm_version must be "1.2" or "2004", not "${value}"`)
}

/** A used-up allowance says when to come back, in the body and as Retry-After. */
export function withRetryAfter(reply: FastifyReply, err: unknown): never {
  if (isAppError(err) && err.code === 'quota_exceeded') {
    const details = err.details as { retry_after_seconds?: number } | undefined
    if (details?.retry_after_seconds) reply.header('retry-after', details.retry_after_seconds)
  }
  throw err
}

export const conversionRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (
  app,
  { ctx },
) => {
  const { conversions } = ctx.services
  app.addSchema(ConversionJob)
  const common = { tags: ['course creation'], security: ApiKeySecurity }

  app.post(
    '/conversions',
    {
      schema: {
        ...common,
        operationId: 'createConversion',
        summary: 'Convert a PowerPoint file (.pptx) into a hosted SCORM package',
        description:
          'Reads the presentation while the request waits and answers 201 with the queued job and its slide count; poll getConversionStatus until it is completed (package_id) or failed (error). ' +
          'A file that is not a readable, unencrypted PowerPoint presentation is refused with 422 and uses no allowance. ' +
          'Sandbox plans include 2 conversions a calendar month (UTC); beyond that the answer is 429 with Retry-After.',
        body: { content: { 'multipart/form-data': { schema: PresentationUpload } } },
        response: {
          201: Type.Ref('ConversionJob'),
          ...errorResponses(400, 401, 413, 415, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const file = await receivePresentation(request)
      try {
        const job = await conversions.create(scopeOf(request), {
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
        operationId: 'listConversions',
        summary: 'List conversion jobs',
        description: "Conversion jobs of the key's tenant and mode, newest first.",
        querystring: ConversionListQuery,
        response: { 200: ConversionList, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const query = request.query
      return conversions.list(scopeOf(request), query)
    },
  )

  app.get(
    '/conversions/:jobId',
    {
      schema: {
        ...common,
        operationId: 'getConversionStatus',
        summary: 'Status, progress and outcome of a conversion job',
        params: JobIdParams,
        response: { 200: Type.Ref('ConversionJob'), ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const { jobId } = request.params
      return conversions.get(scopeOf(request), jobId)
    },
  )
}
