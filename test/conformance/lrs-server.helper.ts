import type { AddressInfo } from 'node:net'
import type { Dialect } from '../../src/infra/db/schema.ts'
import { createLrsServices } from '../../src/modules/lrs/index.ts'
import { createTestApp } from '../helpers/app.ts'
import { createTestDatabase } from '../helpers/database.ts'

export interface LrsServer {
  /** `http://127.0.0.1:PORT/xapi` */
  endpoint: string
  key: string
  secret: string
  close(): Promise<void>
}

/** The real API application listening on 127.0.0.1 with a fresh database and one credential. */
export async function startLrsServer(dialect: Dialect = 'sqlite'): Promise<LrsServer> {
  const database = await createTestDatabase(dialect)
  const testApp = await createTestApp(database)
  const tenant = await testApp.createTenant()
  const lrs = createLrsServices(testApp.ctx.db.kysely, testApp.ctx.clock)
  const credential = await lrs.credentials.create(
    { tenantId: tenant.tenantId, mode: 'test' },
    { label: 'conformance' },
  )
  await testApp.app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = testApp.app.server.address() as AddressInfo
  return {
    endpoint: `http://127.0.0.1:${port}/xapi`,
    key: credential.key,
    secret: credential.secret,
    async close() {
      await testApp.close()
      await database.dispose()
    },
  }
}
