import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { type Static, Type } from 'typebox'
import type { AppContext } from '../../../context.ts'
import { scopeOf } from '../../plugins/api-key-auth.ts'
import { receiveMultipartFile } from '../../receive-upload.ts'
import { ApiKeySecurity, errorResponses, ZipBody } from '../../schemas/common.ts'
import {
  DownloadQuery,
  ListQuery,
  Package,
  PackageDetail,
  PackageIdParams,
  PackageList,
  PackagePatchBody,
  PackageVersion,
  ProcessBody,
  UploadUrlBody,
  UploadUrlResponse,
  VersionParams,
} from './package.schemas.ts'

/**
 * Documents the multipart body. It has no `type: object` on purpose: the multipart plugin
 * leaves `request.body` undefined (the file is streamed), which this schema lets through.
 */
const ZipFile = {
  properties: {
    file: { type: 'string', format: 'binary', description: 'The package zip' },
    uploaded_by: { type: 'string', maxLength: 200, description: 'Who uploaded it (free text)' },
    tenant_id: {
      type: 'string',
      maxLength: 64,
      description: "Must equal the key's tenant when given",
    },
  },
  required: ['file'],
}

/** Multipart (field `file`) or JSON (a storage_path from /packages/upload-url). */
// Typed as the JSON form: the multipart form leaves the body unread (receive-upload.ts).
const UploadBody = Type.Unsafe<Static<typeof ProcessBody>>({
  content: {
    'multipart/form-data': { schema: ZipFile },
    'application/json': { schema: ProcessBody },
  },
})

// Long on purpose: a route plugin: one short registration per endpoint of this resource.
export const packageRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (
  app,
  { ctx },
) => {
  const { packages, uploads } = ctx.services
  app.addSchema(Package)
  app.addSchema(PackageVersion)
  app.addSchema(PackageDetail)
  const common = { tags: ['packages'], security: ApiKeySecurity }

  app.get(
    '/packages',
    {
      schema: {
        ...common,
        operationId: 'listPackages',
        summary: 'List packages',
        description: "Packages of the key's tenant and mode, newest first.",
        querystring: ListQuery,
        response: { 200: PackageList, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      return packages.list(scopeOf(request), request.query)
    },
  )

  app.post(
    '/packages/upload',
    {
      schema: {
        ...common,
        operationId: 'uploadPackage',
        summary: 'Upload a package zip (multipart, field "file")',
        body: { content: { 'multipart/form-data': { schema: ZipFile } } },
        response: {
          201: Type.Ref('PackageDetail'),
          ...errorResponses(400, 401, 413, 415, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const file = await receiveMultipartFile(request, ZipFile)
      try {
        const detail = await packages.createFromZip(scopeOf(request), {
          zipPath: file.path,
          filename: file.filename,
          uploadedBy: file.fields.uploaded_by ?? null,
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
        operationId: 'createPackageUploadUrl',
        summary: 'Step 1 of the presigned upload: get a URL to PUT the zip to',
        body: UploadUrlBody,
        response: { 200: UploadUrlResponse, ...errorResponses(400, 401, 403, 413, 429) },
      },
    },
    async (request) => uploads.createUploadUrl(scopeOf(request), request.body),
  )

  app.post(
    '/packages/process',
    {
      schema: {
        ...common,
        operationId: 'processPackageUpload',
        summary: 'Step 3 of the presigned upload: validate and store the uploaded zip',
        body: ProcessBody,
        response: {
          201: Type.Ref('PackageDetail'),
          ...errorResponses(400, 401, 403, 404, 409, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const detail = await uploads.processUpload(scopeOf(request), request.body)
      return reply.status(201).send(detail)
    },
  )

  app.get(
    '/packages/:packageId',
    {
      schema: {
        ...common,
        operationId: 'getPackage',
        summary: 'A package with its versions and the manifest summary of the active version',
        params: PackageIdParams,
        response: { 200: Type.Ref('PackageDetail'), ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const { packageId } = request.params
      return packages.get(scopeOf(request), packageId)
    },
  )

  app.patch(
    '/packages/:packageId',
    {
      schema: {
        ...common,
        operationId: 'updatePackage',
        summary: "Change a package's runtime options",
        description: 'Only the fields given change; running launches see it within 30 s.',
        params: PackageIdParams,
        body: PackagePatchBody,
        response: { 200: Type.Ref('PackageDetail'), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { packageId } = request.params
      return packages.updateRuntimeOptions(
        scopeOf(request),
        packageId,
        request.body.runtime_options,
      )
    },
  )

  app.post(
    '/packages/:packageId/versions',
    {
      schema: {
        ...common,
        operationId: 'uploadPackageVersion',
        summary: 'Upload a new version (multipart "file", or JSON with a storage_path)',
        description: 'The new version is stored inactive; activate it explicitly.',
        params: PackageIdParams,
        body: UploadBody,
        response: {
          201: Type.Ref('PackageDetail'),
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const { packageId } = request.params
      const scope = scopeOf(request)
      if (!request.isMultipart()) {
        const detail = await uploads.processUpload(scope, request.body, packageId)
        return reply.status(201).send(detail)
      }
      const file = await receiveMultipartFile(request, ZipFile)
      try {
        const detail = await packages.addVersionFromZip(scope, packageId, {
          zipPath: file.path,
          filename: file.filename,
          uploadedBy: file.fields.uploaded_by ?? null,
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
        operationId: 'activatePackageVersion',
        summary: 'Make a version the one new launches and dispatches use',
        params: VersionParams,
        response: { 200: Type.Ref('PackageDetail'), ...errorResponses(401, 404, 409, 429) },
      },
    },
    async (request) => {
      const { packageId, versionId } = request.params
      return packages.activateVersion(scopeOf(request), packageId, versionId)
    },
  )

  for (const action of ['archive', 'restore'] as const) {
    app.post(
      `/packages/:packageId/${action}`,
      {
        schema: {
          ...common,
          operationId: `${action}Package`,
          summary:
            action === 'archive'
              ? 'Archive a package (no new launches)'
              : 'Restore an archived package',
          params: PackageIdParams,
          response: { 200: Type.Ref('PackageDetail'), ...errorResponses(401, 404, 409, 429) },
        },
      },
      async (request) => {
        const { packageId } = request.params
        return packages[action](scopeOf(request), packageId)
      },
    )
  }

  app.get(
    '/packages/:packageId/download',
    {
      schema: {
        ...common,
        operationId: 'downloadPackage',
        summary: 'The original zip of the active version (or of ?version_id=)',
        params: PackageIdParams,
        querystring: DownloadQuery,
        produces: ['application/zip'],
        response: {
          200: ZipBody,
          ...errorResponses(401, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const { packageId } = request.params
      const { version_id } = request.query
      const zip = await packages.openOriginalZip(scopeOf(request), packageId, version_id)
      const asciiName = zip.filename.replace(/[^\x20-\x7e]|["\\]/g, '_')
      return reply
        .type('application/zip')
        .header('content-length', zip.size)
        .header(
          'content-disposition',
          `attachment; filename="${asciiName}"; filename*=UTF-8''${encodeURIComponent(zip.filename)}`,
        )
        .send(zip.body)
    },
  )
}
