import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { after, before, test } from 'node:test'
import pino from 'pino'
import { type App, buildApp, buildContentApp } from '../../../src/app.ts'
import { loadConfig } from '../../../src/config.ts'
import { redactUrl } from '../../../src/http/plugins/log-redaction.ts'
import { createContext } from '../../../src/main/context.ts'
import { describeEachDatabase } from '../../helpers/database.ts'

const SECRET = 'SeCrEtToKeN0123456789'

test('redactUrl hides tokens in the path and the query, and keeps the rest', () => {
  assert.equal(redactUrl(`/c/${SECRET}/sco/index.html?x=1`), '/c/[redacted]/sco/index.html?x=1')
  assert.equal(redactUrl(`/uploads/${SECRET}`), '/uploads/[redacted]')
  assert.equal(redactUrl(`/downloads/${SECRET}`), '/downloads/[redacted]')
  assert.equal(redactUrl(`/launch/ses_1?token=${SECRET}&a=b`), '/launch/ses_1?token=[redacted]&a=b')
  assert.equal(redactUrl(`/x?a=1&launch_token=${SECRET}`), '/x?a=1&launch_token=[redacted]')
  assert.equal(redactUrl('/api/v1/packages?limit=5'), '/api/v1/packages?limit=5')
})

describeEachDatabase('tokens never reach the request log', (database) => {
  const lines: string[] = []
  let ctx: Awaited<ReturnType<typeof createContext>>
  let api: App
  let content: App
  let dataDir: string
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cp-log-'))
    const config = loadConfig({
      DATA_DIR: dataDir,
      DATABASE_URL: database().url,
      SECRET_KEY: 'test-secret-key-test-secret-key-0123456789',
      LOG_LEVEL: 'info',
      PUBLIC_URL: 'http://127.0.0.1:18080',
      CONTENT_URL: 'http://127.0.0.1:18081',
      CONTENT_ORIGINS: 'single',
    })
    ctx = await createContext(config, { db: database().db })
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean))
        done()
      },
    })
    const logger = pino({ level: 'info' }, sink)
    api = await buildApp(ctx, { loggerInstance: logger })
    content = await buildContentApp(ctx, { loggerInstance: logger })
  })
  after(async () => {
    await api.close()
    await content.close()
    await ctx.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  test('launch, upload, download and content URLs are logged with the token redacted', async () => {
    await api.inject({ method: 'PUT', url: `/uploads/${SECRET}`, payload: 'x' })
    await api.inject({ url: `/downloads/${SECRET}` })
    await api.inject({ url: `/uploads/${SECRET}/extra` })
    await content.inject({ url: `/c/${SECRET}/index.html` })
    await content.inject({ url: `/launch/ses_x?token=${SECRET}` })
    await content.inject({ url: `/dispatch/dsp_x/launch?token=${SECRET}` })
    const requestLines = lines.filter((line) => line.includes('"req"'))
    assert.ok(requestLines.length >= 4, `logged ${requestLines.length} requests`)
    for (const line of lines) assert.ok(!line.includes(SECRET), line)
    assert.ok(requestLines.some((line) => line.includes('/uploads/[redacted]')))
    assert.ok(requestLines.some((line) => line.includes('token=[redacted]')))
  })
})
