import type { AddressInfo } from 'node:net'
import type { Dialect } from '../../src/infra/db/schema.ts'
import { createLrsServices } from '../../src/modules/lrs/index.ts'
import { createTestApp } from '../helpers/app.ts'
import { createTestDatabase } from '../helpers/database.ts'

export interface LrsServer {
  /** `http://127.0.0.1:PORT/xapi` */
  endpoint: string
  /** A credential with the default `xapi_version` 2.0.0. */
  key: string
  secret: string
  /** A credential made for 1.0.3 content (`xapi_version` 1.0.3), for the 1.0.3 suite. */
  legacy: { key: string; secret: string }
  close(): Promise<void>
}

/** The real API application on 127.0.0.1 with a fresh database and a credential per version. */
export async function startLrsServer(dialect: Dialect = 'sqlite'): Promise<LrsServer> {
  const database = await createTestDatabase(dialect)
  const testApp = await createTestApp(database)
  const tenant = await testApp.createTenant()
  const lrs = createLrsServices(testApp.ctx.db.kysely, testApp.ctx.clock)
  const credential = await lrs.credentials.create(
    { tenantId: tenant.tenantId, mode: 'test' },
    { label: 'conformance' },
  )
  const legacy = await lrs.credentials.create(
    { tenantId: tenant.tenantId, mode: 'test' },
    { label: 'conformance 1.0.3', xapi_version: '1.0.3' },
  )
  await testApp.app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = testApp.app.server.address() as AddressInfo
  return {
    endpoint: `http://127.0.0.1:${port}/xapi`,
    key: credential.key,
    secret: credential.secret,
    legacy: { key: legacy.key, secret: legacy.secret },
    async close() {
      await testApp.close()
      await database.dispose()
    },
  }
}
