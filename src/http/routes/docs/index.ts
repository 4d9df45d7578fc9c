import scalar from '@scalar/fastify-api-reference'
import type { FastifyInstance } from 'fastify'
import { actionsSubset } from '../../plugins/openapi.ts'
import {
  REFERENCE_ACCESSIBILITY_SCRIPT,
  REFERENCE_CONTRAST_CSS,
  REFERENCE_SCRIPT_PATH,
  withAccessibility,
} from './reference-accessibility.ts'

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
  customCss: `.scalar-app, .scalar-api-reference { --scalar-font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; --scalar-font-code: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }\n${REFERENCE_CONTRAST_CSS}`,
} as const

/** The machine-readable descriptions and the interactive reference page. */
export async function docsRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/docs/openapi', { schema: { hide: true } }, async () => app.swagger())
  app.get('/api/v1/openapi-actions', { schema: { hide: true } }, async () =>
    actionsSubset(app.swagger() as unknown as Parameters<typeof actionsSubset>[0]),
  )
  app.get(REFERENCE_SCRIPT_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').send(REFERENCE_ACCESSIBILITY_SCRIPT),
  )
  app.addHook('onSend', async (_request, reply, payload) =>
    typeof payload === 'string' && String(reply.getHeader('content-type')).startsWith('text/html')
      ? withAccessibility(payload)
      : payload,
  )
  await app.register(scalar, {
    routePrefix: '/api/docs',
    configuration: { url: '/api/docs/openapi', title: 'Courseport API', ...OFFLINE },
  })
}
