import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../../../context.ts'
import { errorResponses } from '../../schemas/common.ts'

/**
 * `PUT /uploads/{token}`: where presigned URLs point when blobs are on the local filesystem.
 * The signed token is the only credential, like an S3 presigned URL.
 */
export async function uploadTargetRoutes(
  app: FastifyInstance,
  { ctx }: { ctx: AppContext },
): Promise<void> {
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
        params: Type.Object({ token: Type.String() }),
        response: {
          200: Type.Object({ storage_path: Type.String(), size: Type.Integer() }),
          ...errorResponses(400, 403, 413),
        },
      },
    },
    async (request) => {
      const { token } = request.params as { token: string }
      const length = request.headers['content-length']
      return ctx.services.uploads.receiveSignedUpload(
        token,
        request.raw,
        length === undefined ? undefined : Number(length),
      )
    },
  )
}
