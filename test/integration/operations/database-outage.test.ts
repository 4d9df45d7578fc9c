import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { createTestDatabase, DATABASE_TARGETS, type TestDatabase } from '../../helpers/database.ts'
import { freePort, type ServerProcess, startCourseport } from '../../helpers/server-process.ts'
import { startTcpForwarder, type TcpForwarder } from '../../helpers/tcp-forwarder.ts'

// Only PostgreSQL can become unreachable while a process runs; SQLite is a local file.
const postgres = DATABASE_TARGETS.find((target) => target.dialect === 'postgres')

describe('an unreachable database [postgres]', { skip: postgres?.skip }, () => {
  let database: TestDatabase
  let forwarder: TcpForwarder
  let server: ServerProcess
  let dataDir = ''
  let key = ''

  before(async () => {
    database = await createTestDatabase('postgres')
    const real = new URL(database.url)
    forwarder = await startTcpForwarder({ host: real.hostname, port: Number(real.port || 5432) })
    const viaForwarder = new URL(database.url)
    viaForwarder.hostname = '127.0.0.1'
    viaForwarder.port = String(forwarder.port)
    dataDir = mkdtempSync(join(tmpdir(), 'cp-db-outage-'))
    server = await startCourseport(['serve', '--no-worker'], {
      PORT: String(await freePort()),
      CONTENT_PORT: String(await freePort()),
      DATA_DIR: dataDir,
      DATABASE_URL: viaForwarder.toString(),
      DATABASE_CONNECT_TIMEOUT_MS: '1000',
      SECRET_KEY: 'db-outage-test-secret-key-0123456789abcdef',
      LOG_LEVEL: 'info',
      SHUTDOWN_DRAIN_DELAY_MS: '0',
    })
    key = server.testKey ?? ''
    assert.ok(key, server.output())
  })
  after(async () => {
    await server?.stop()
    await forwarder?.stop().catch(() => {})
    await database?.dispose()
    rmSync(dataDir, { recursive: true, force: true })
  })

  test('requests answer 503 database_unavailable with Retry-After, the process stays up, and recovers', async () => {
    const list = () =>
      fetch(`${server.url}/api/v1/packages`, { headers: { authorization: `Bearer ${key}` } })
    assert.equal((await list()).status, 200)

    await forwarder.stop()
    for (let i = 0; i < 3; i++) {
      const res = await list()
      const body = await res.json()
      assert.equal(res.status, 503, JSON.stringify(body))
      assert.equal(body.error.code, 'database_unavailable')
      assert.match(res.headers.get('retry-after') ?? '', /^\d+$/)
    }
    const ready = await fetch(`${server.url}/readyz`)
    assert.equal(ready.status, 503)
    assert.deepEqual(await ready.json(), { status: 'database_unavailable' })
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200)
    assert.equal(server.child.exitCode, null, server.output())

    await forwarder.start()
    assert.equal((await fetch(`${server.url}/readyz`)).status, 200)
    assert.equal((await list()).status, 200)
  })
})
