import swagger from '@fastify/swagger'
import type { FastifyInstance } from 'fastify'

/** Operations offered to GPT Actions, in the spec's order (§ "What the service does", 9). */
export const ACTIONS_OPERATION_IDS = [
  'createScormCourse',
  'listPackages',
  'launchSession',
  'getSession',
  'listConversions',
  'createConversion',
  'getConversionStatus',
] as const

/**
 * Registers @fastify/swagger so the OpenAPI 3.1 document is generated from the same TypeBox
 * schemas that validate requests (DESIGN §11). Must run before routes are registered.
 */
export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Courseport API',
        version: '1.0.0',
        description:
          'Hosted SCORM, cmi5 and xAPI content: packages, launches, runtime data, dispatches, webhooks. ' +
          'Authenticate with an API key (`cp_test_…` or `cp_live_…`); test keys see only test data.',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Courseport' },
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'Authorization: Bearer <API key>',
          },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          dashboardSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'cp_session',
            description:
              'The dashboard session cookie set by POST /api/customer/login; state-changing ' +
              "calls also send the session's CSRF token as X-CSRF-Token. API keys are refused.",
          },
        },
      },
      tags: [
        { name: 'packages', description: 'Upload, version and manage content packages' },
        { name: 'uploads', description: 'Presigned upload target (file storage backend)' },
        { name: 'system', description: 'Health and readiness' },
        {
          name: 'dashboard',
          description:
            "/api/customer: the dashboard's API, signed in by session cookie. Reads take " +
            "`mode=test|live` (default test), the page's test/live switch.",
        },
      ],
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  })
}

type OpenApiDocument = {
  info: Record<string, unknown>
  paths?: Record<string, Record<string, { operationId?: string } & Record<string, unknown>>>
  components?: { schemas?: Record<string, unknown> } & Record<string, unknown>
} & Record<string, unknown>

/**
 * The GPT Actions subset: the same document restricted to the spec's seven operations (those
 * that exist yet), version 1.0.0.
 */
export function actionsSubset(full: OpenApiDocument): OpenApiDocument {
  const doc = structuredClone(full)
  const paths: NonNullable<OpenApiDocument['paths']> = {}
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const kept = Object.entries(item).filter(([, op]) =>
      (ACTIONS_OPERATION_IDS as readonly string[]).includes(op.operationId ?? ''),
    )
    if (kept.length) paths[path] = Object.fromEntries(kept)
  }
  doc.paths = paths
  doc.info = {
    ...doc.info,
    title: 'Courseport Actions',
    version: '1.0.0',
    description: 'The subset of the Courseport API for GPT Actions.',
  }
  doc.tags = undefined
  return JSON.parse(JSON.stringify(doc)) as OpenApiDocument
}
