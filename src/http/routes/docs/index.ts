import scalar from '@scalar/fastify-api-reference'
import type { FastifyInstance } from 'fastify'
import { actionsSubset } from '../../plugins/openapi.ts'

/** The machine-readable descriptions and the interactive reference page. */
export async function docsRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/docs/openapi', { schema: { hide: true } }, async () => app.swagger())
  app.get('/api/v1/openapi-actions', { schema: { hide: true } }, async () =>
    actionsSubset(app.swagger() as unknown as Parameters<typeof actionsSubset>[0]),
  )
  await app.register(scalar, {
    routePrefix: '/api/docs',
    configuration: { url: '/api/docs/openapi', title: 'Courseport API' },
  })
}
