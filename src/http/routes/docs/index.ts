import scalar from '@scalar/fastify-api-reference'
import type { FastifyInstance } from 'fastify'
import { actionsSubset } from '../../plugins/openapi.ts'

/**
 * The reference page works offline and never talks to the vendor: its script comes from this
 * service (the plugin serves it), the system's fonts replace fonts.scalar.com, no telemetry, and
 * the buttons that need Scalar's cloud (Ask AI, MCP installs, developer tools' share/deploy, the
 * hosted API client) are hidden. test/e2e/dashboard/api-docs.test.ts checks it with the network blocked.
 */
const OFFLINE = {
  withDefaultFonts: false,
  telemetry: false,
  // '' (not unset): an unset proxy sends the API client's test requests through proxy.scalar.com.
  proxyUrl: '',
  hideClientButton: true,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  // System fonts, since the default ones would come from the vendor's font host.
  customCss: `.scalar-app, .scalar-api-reference { --scalar-font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; --scalar-font-code: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }`,
} as const

/** The machine-readable descriptions and the interactive reference page. */
export async function docsRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/docs/openapi', { schema: { hide: true } }, async () => app.swagger())
  app.get('/api/v1/openapi-actions', { schema: { hide: true } }, async () =>
    actionsSubset(app.swagger() as unknown as Parameters<typeof actionsSubset>[0]),
  )
  await app.register(scalar, {
    routePrefix: '/api/docs',
    configuration: { url: '/api/docs/openapi', title: 'Courseport API', ...OFFLINE },
  })
}
