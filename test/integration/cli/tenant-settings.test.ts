import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { promisify } from 'node:util'

const run = promisify(execFile)
const CLI = join(import.meta.dirname, '../../../bin/courseport')

let dataDir: string
let env: Record<string, string | undefined>
before(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'cp-cli-settings-'))
  env = {
    ...process.env,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    DATABASE_URL: undefined,
    SECRET_KEY: undefined,
  }
})
after(() => rmSync(dataDir, { recursive: true, force: true }))

async function cli(...args: string[]) {
  const { stdout } = await run(CLI, args, { env })
  return stdout
}

/** The command fails with exit code 1 and a stderr matching `pattern`. */
async function refused(pattern: RegExp, ...args: string[]) {
  await assert.rejects(run(CLI, args, { env }), (err: { stderr: string; code: number }) => {
    assert.notEqual(err.code, 0)
    assert.match(err.stderr, pattern)
    return true
  })
}

async function newTenant(): Promise<string> {
  return JSON.parse(await cli('tenant', 'create', '--name', 'Settings', '--json')).tenant_id
}

test('tenant settings sets the 1.2 suspend-data limit, and prints it back without options', async () => {
  const tenant = await newTenant()
  const set = JSON.parse(
    await cli(
      'tenant',
      'settings',
      '--tenant',
      tenant,
      '--suspend-data-limit-12',
      '64000',
      '--json',
    ),
  )
  assert.equal(set.suspendDataLimit12, 64000)
  const read = JSON.parse(await cli('tenant', 'settings', '--tenant', tenant, '--json'))
  assert.equal(read.suspendDataLimit12, 64000)
})

test('tenant settings refuses a bad suspend-data limit, naming the option, and keeps the old one', async () => {
  const tenant = await newTenant()
  await cli('tenant', 'settings', '--tenant', tenant, '--suspend-data-limit-12', '4096')
  await refused(
    /--suspend-data-limit-12/,
    'tenant',
    'settings',
    '--tenant',
    tenant,
    '--suspend-data-limit-12',
    '9000',
  )
  const read = JSON.parse(await cli('tenant', 'settings', '--tenant', tenant, '--json'))
  assert.equal(read.suspendDataLimit12, 4096)
})

test('tenant settings switches SCORM statements on and off without touching other settings', async () => {
  const tenant = await newTenant()
  await cli('tenant', 'settings', '--tenant', tenant, '--suspend-data-limit-12', '64000')
  const on = JSON.parse(
    await cli('tenant', 'settings', '--tenant', tenant, '--scorm-statements', 'on', '--json'),
  )
  assert.equal(on.scormStatements, true)
  assert.equal(on.suspendDataLimit12, 64000)
  await cli('tenant', 'settings', '--tenant', tenant, '--scorm-statements', 'off')
  const read = JSON.parse(await cli('tenant', 'settings', '--tenant', tenant, '--json'))
  assert.equal(read.scormStatements, false)
  await refused(
    /--scorm-statements/,
    'tenant',
    'settings',
    '--tenant',
    tenant,
    '--scorm-statements',
    'yes',
  )
})

test('tenant settings for an unknown tenant is refused', async () => {
  await refused(
    /ten_missing/,
    'tenant',
    'settings',
    '--tenant',
    'ten_missing',
    '--scorm-statements',
    'on',
  )
})
