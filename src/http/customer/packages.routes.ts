import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { AppContext } from '../../context.ts'
import { requirePermission } from '../../modules/accounts/roles.ts'
import { receiveMultipartFile } from '../receive-upload.ts'
import {
  PackageDetail,
  PackageIdParams,
  PackageVersion,
  UploadUrlResponse,
  VersionParams,
} from '../routes/packages/package.schemas.ts'
import { LaunchResponse } from '../routes/sessions/session.schemas.ts'
import { errorResponses } from '../schemas/common.ts'
import { DashboardSecurity, ModeQuery } from './customer.schemas.ts'
import { customerOf, customerScope } from './customer-auth.ts'

/** The multipart body (see routes/packages: no `type: object`, the file is streamed). */
const ZipFile = {
  properties: {
    file: { type: 'string', format: 'binary', description: 'The package zip' },
  },
  required: ['file'],
}

const ModeOnly = Type.Object({ mode: ModeQuery })

const UploadUrlBody = Type.Object(
  {
    filename: Type.String({ minLength: 1, maxLength: 255 }),
    file_size: Type.Integer({ minimum: 1, description: 'Exact size in bytes of the zip to PUT' }),
  },
  { additionalProperties: false },
)

const ProcessBody = Type.Object(
  {
    storage_path: Type.String({ minLength: 1, maxLength: 1024 }),
    package_id: Type.Optional(
      Type.String({
        maxLength: 64,
        description: 'Add the upload as a new version of this package',
      }),
    ),
  },
  { additionalProperties: false },
)

// Long on purpose: a route plugin: one short registration per endpoint of this resource.
/**
 * The dashboard's package jobs through the same PackageService, UploadService and LaunchService
 * as /api/v1: upload a zip (multipart, or the presigned flow: upload-url, PUT, process — the
 * browser reports real progress on the PUT), read a package with its versions and warnings,
 * activate a version, archive/restore, and launch it as a test learner (the signed-in user).
 * Changes need an admin or owner.
 */
export const customerPackageRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (
  app,
  { ctx },
) => {
  const { packages, launches, uploads } = ctx.services
  app.addSchema(PackageVersion)
  app.addSchema(PackageDetail)
  const common = { tags: ['dashboard'], security: DashboardSecurity }
  const manager = async (request: Parameters<typeof customerOf>[0]) => {
    requirePermission(customerOf(request).role, 'manage_content')
  }

  app.post(
    '/packages/upload',
    {
      schema: {
        ...common,
        operationId: 'dashboardUploadPackage',
        summary: 'Upload a package zip (multipart, field "file") into the chosen mode',
        querystring: ModeOnly,
        body: { content: { 'multipart/form-data': { schema: ZipFile } } },
        response: {
          201: Type.Ref('PackageDetail'),
          ...errorResponses(400, 401, 403, 413, 415, 422),
        },
      },
      preHandler: manager,
    },
    async (request, reply) => {
      const scope = customerScope(request, request.query.mode)
      const file = await receiveMultipartFile(request, ZipFile)
      try {
        const detail = await packages.createFromZip(scope, {
          zipPath: file.path,
          filename: file.filename,
          uploadedBy: customerOf(request).email,
        })
        return reply.status(201).send(detail)
      } finally {
        await file.dispose()
      }
    },
  )

  app.post(
    '/packages/upload-url',
    {
      schema: {
        ...common,
        operationId: 'dashboardPackageUploadUrl',
        summary: 'Step 1 of the presigned upload: a URL to PUT the zip to (then POST process)',
        querystring: ModeOnly,
        body: UploadUrlBody,
        response: { 200: UploadUrlResponse, ...errorResponses(400, 401, 403, 413) },
      },
      preHandler: manager,
    },
    async (request) =>
      uploads.createUploadUrl(customerScope(request, request.query.mode), {
        ...request.body,
        uploaded_by: customerOf(request).email,
      }),
  )

  app.post(
    '/packages/process',
    {
      schema: {
        ...common,
        operationId: 'dashboardProcessPackageUpload',
        summary:
          'Step 3 of the presigned upload: validate and store the zip (new package or version)',
        querystring: ModeOnly,
        body: ProcessBody,
        response: {
          201: Type.Ref('PackageDetail'),
          ...errorResponses(400, 401, 403, 404, 409, 422),
        },
      },
      preHandler: manager,
    },
    async (request, reply) => {
      const { storage_path, package_id } = request.body
      const detail = await uploads.processUpload(
        customerScope(request, request.query.mode),
        { storage_path, uploaded_by: customerOf(request).email },
        package_id,
      )
      return reply.status(201).send(detail)
    },
  )

  app.post(
    '/packages/:packageId/versions',
    {
      schema: {
        ...common,
        operationId: 'dashboardUploadVersion',
        summary: 'Upload a new version (multipart, field "file"); it is stored inactive',
        description:
          'For storage whose presigned URLs the page cannot reach (an S3 bucket on another ' +
          'origin than the CSP allows); otherwise the page uses upload-url and process.',
        params: PackageIdParams,
        querystring: ModeOnly,
        body: { content: { 'multipart/form-data': { schema: ZipFile } } },
        response: {
          201: Type.Ref('PackageDetail'),
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422),
        },
      },
      preHandler: manager,
    },
    async (request, reply) => {
      const scope = customerScope(request, request.query.mode)
      const file = await receiveMultipartFile(request, ZipFile)
      try {
        const detail = await packages.addVersionFromZip(scope, request.params.packageId, {
          zipPath: file.path,
          filename: file.filename,
          uploadedBy: customerOf(request).email,
        })
        return reply.status(201).send(detail)
      } finally {
        await file.dispose()
      }
    },
  )

  app.post(
    '/packages/:packageId/versions/:versionId/activate',
    {
      schema: {
        ...common,
        operationId: 'dashboardActivateVersion',
        summary: 'Make a version the one new launches and dispatches use',
        params: VersionParams,
        querystring: ModeOnly,
        response: { 200: Type.Ref('PackageDetail'), ...errorResponses(401, 403, 404, 409) },
      },
      preHandler: manager,
    },
    async (request) => {
      const { packageId, versionId } = request.params
      return packages.activateVersion(
        customerScope(request, request.query.mode),
        packageId,
        versionId,
      )
    },
  )

  app.get(
    '/packages/:packageId',
    {
      schema: {
        ...common,
        operationId: 'dashboardGetPackage',
        summary: 'A package with its versions, manifest summary and runtime warnings',
        params: PackageIdParams,
        querystring: ModeOnly,
        response: { 200: Type.Ref('PackageDetail'), ...errorResponses(401, 404) },
      },
    },
    async (request) =>
      packages.get(customerScope(request, request.query.mode), request.params.packageId),
  )

  for (const action of ['archive', 'restore'] as const) {
    app.post(
      `/packages/:packageId/${action}`,
      {
        schema: {
          ...common,
          operationId: `dashboard${action === 'archive' ? 'Archive' : 'Restore'}Package`,
          summary: action === 'archive' ? 'Archive a package' : 'Restore an archived package',
          params: PackageIdParams,
          querystring: ModeOnly,
          response: { 200: Type.Ref('PackageDetail'), ...errorResponses(401, 403, 404, 409) },
        },
        preHandler: manager,
      },
      async (request) =>
        packages[action](customerScope(request, request.query.mode), request.params.packageId),
    )
  }

  app.post(
    '/packages/:packageId/test-launch',
    {
      schema: {
        ...common,
        operationId: 'dashboardTestLaunch',
        summary: 'Launch the package as the signed-in user (learner id dashboard:{email})',
        params: PackageIdParams,
        querystring: ModeOnly,
        response: { 200: LaunchResponse, ...errorResponses(401, 403, 404, 409) },
      },
      preHandler: manager,
    },
    async (request) => {
      const user = customerOf(request)
      return launches.launch(customerScope(request, request.query.mode), request.params.packageId, {
        userId: `dashboard:${user.email}`,
        learnerName: user.email,
      })
    },
  )
}
