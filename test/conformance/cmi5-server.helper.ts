import type { Dialect } from '../../src/infra/db/schema.ts'
import { createLrsServices } from '../../src/modules/lrs/index.ts'
import { createTestApp } from '../helpers/app.ts'
import { createTestDatabase } from '../helpers/database.ts'
import { freePort } from '../helpers/server-process.ts'

export interface Cmi5Server {
  /** What the LMS adapter reads (cmi5-lms-adapter.cjs). */
  env: Record<string, string>
  close(): Promise<void>
}

/**
 * Both origins of the real application on 127.0.0.1 (the API with the LRS, the content origin
 * where AUs run), a fresh database, a tenant with an API key and an LRS credential.
 */
export async function startCmi5Server(dialect: Dialect = 'sqlite'): Promise<Cmi5Server> {
  const [apiPort, contentPort] = [await freePort(), await freePort()]
  const database = await createTestDatabase(dialect)
  const testApp = await createTestApp(database, {
    env: {
      PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
      CONTENT_URL: `http://127.0.0.1:${contentPort}`,
    },
  })
  const tenant = await testApp.createTenant()
  const lrs = createLrsServices(testApp.ctx.db.kysely, testApp.ctx.clock)
  const credential = await lrs.credentials.create(
    { tenantId: tenant.tenantId, mode: 'test' },
    { label: 'cmi5 LTS' },
  )
  await testApp.app.listen({ host: '127.0.0.1', port: apiPort })
  await testApp.content.listen({ host: '127.0.0.1', port: contentPort })
  return {
    env: {
      COURSEPORT_API_URL: `http://127.0.0.1:${apiPort}`,
      COURSEPORT_API_KEY: tenant.testKey,
      COURSEPORT_LRS_KEY: credential.key,
      COURSEPORT_LRS_SECRET: credential.secret,
    },
    async close() {
      await testApp.close()
      await database.dispose()
    },
  }
}
