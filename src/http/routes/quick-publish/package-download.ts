import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { AppContext } from '../../../context.ts'
import { verifyDownloadToken } from '../../../modules/publish/package-download.token.ts'
import { AppError } from '../../../shared/app-error.ts'
import { errorResponses, TokenParams, ZipBody } from '../../schemas/common.ts'

/**
 * `GET /downloads/{token}`: the `package_url` of quick publish. The signed, expiring token is the
 * only credential (like a presigned URL), so the link works in a browser or an LMS import
 * without an API key; it names one version of one package of one tenant and mode.
 */
export const packageDownloadRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (
  app,
  { ctx },
) => {
  app.get(
    '/downloads/:token',
    {
      schema: {
        tags: ['packages'],
        operationId: 'downloadPackageByLink',
        security: [],
        summary: 'Download a package zip through a signed link (package_url of quick publish)',
        params: TokenParams,
        produces: ['application/zip'],
        response: {
          200: ZipBody,
          ...errorResponses(403, 404),
        },
      },
    },
    async (request, reply) => {
      const { token } = request.params
      const check = verifyDownloadToken(ctx.config.secretKey, token, ctx.clock.now())
      if (!check.ok && check.reason === 'expired') {
        throw new AppError(
          'forbidden',
          'This download link has expired. Download the package with an API key (GET /api/v1/packages/{id}/download).',
        )
      }
      if (!check.ok) throw new AppError('not_found', 'No download at this link')
      const { t, m, p, v } = check.claims
      const zip = await ctx.services.packages.openOriginalZip({ tenantId: t, mode: m }, p, v)
      const asciiName = zip.filename.replace(/[^\x20-\x7e]|["\\]/g, '_')
      return reply
        .type('application/zip')
        .header('content-length', zip.size)
        .header('cache-control', 'private, no-store')
        .header('referrer-policy', 'no-referrer')
        .header(
          'content-disposition',
          `attachment; filename="${asciiName}"; filename*=UTF-8''${encodeURIComponent(zip.filename)}`,
        )
        .send(zip.body)
    },
  )
}
