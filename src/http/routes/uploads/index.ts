import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { AppContext } from '../../../context.ts'
import { errorResponses, TokenParams } from '../../schemas/common.ts'

/** The answer to a presigned PUT on the fs backend. */
export const UploadReceipt = Type.Object({ storage_path: Type.String(), size: Type.Integer() })

/**
 * `PUT /uploads/{token}`: where presigned URLs point when blobs are on the local filesystem.
 * The signed token is the only credential, like an S3 presigned URL.
 */
export const uploadTargetRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (
  app,
  { ctx },
) => {
  // The body is the raw file, whatever its type: hand the stream to the handler untouched.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload))
  app.put(
    '/uploads/:token',
    {
      bodyLimit: ctx.config.upload.maxBytes,
      schema: {
        tags: ['uploads'],
        operationId: 'putUpload',
        security: [],
        summary: 'Step 2 of the presigned upload (file storage): PUT the zip bytes',
        params: TokenParams,
        response: {
          200: UploadReceipt,
          ...errorResponses(400, 403, 409, 413),
        },
      },
    },
    async (request) => {
      const { token } = request.params
      const length = request.headers['content-length']
      return ctx.services.uploads.receiveSignedUpload(
        token,
        request.raw,
        length === undefined ? undefined : Number(length),
      )
    },
  )
}
