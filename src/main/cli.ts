import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig } from '../config.ts'
import {
  ConfigError,
  explicitSecretReason,
  missingSecretError,
  type ProcessRole,
} from '../config-variables.ts'
import type { Db } from '../infra/db/database.ts'
import { DatabaseUnreachableError } from '../infra/db/wait-for-database.ts'
import { TenantService } from '../modules/tenants/tenant.service.ts'
import { isMode } from '../modules/tenants/tenant-scope.ts'
import { isAppError } from '../shared/app-error.ts'
import { systemClock } from '../shared/clock.ts'
import { backupCommand } from './backup-command.ts'
import { openMigratedDatabase } from './context.ts'
import { jobsCommand } from './jobs-command.ts'
import { loadOrCreateLocalSecret } from './secret.ts'
import { runServer } from './server.ts'
import { UsageError } from './usage-error.ts'
import { userCommand } from './user-command.ts'
import { runWorkerProcess } from './worker.ts'

const USAGE = `Usage: courseport <command>

  serve [--no-worker]                       API (PORT) + content (CONTENT_PORT) [+ job worker]
  worker                                    job worker only
  migrate                                   bring the database schema up to date
  backup FILE [--json]                      online copy of a SQLite database (PostgreSQL: pg_dump)
  tenant create --name NAME [--plan PLAN] [--json]
  tenant list [--json]
  tenant settings --tenant TENANT_ID [--suspend-data-limit-12 4096|64000] [--scorm-statements on|off]
                                            change a tenant's settings; without options, print them
  key create --tenant TENANT_ID --mode test|live [--json]
  key revoke KEY_ID
  user create --tenant TENANT_ID --email EMAIL [--role owner|admin|viewer] [--json]
                                            a dashboard user: prints a one-time set-password link
  jobs list [--state failed|stuck|pending|running] [--limit N] [--json]
  jobs retry JOB_ID                         run a failed or stuck job again now

Configuration comes from the environment; see README.md.`

/**
 * The configuration from the environment. Without SECRET_KEY only the zero-setup default keeps
 * a secret under DATA_DIR; any multi-process deployment must set it (`explicitSecretReason`).
 */
function config(role: ProcessRole = 'admin') {
  const env = process.env
  if (!env.SECRET_KEY) {
    const reason = explicitSecretReason(env, role)
    if (reason) throw missingSecretError(reason)
  }
  const dataDir = resolve(env.DATA_DIR || './data')
  return loadConfig(env, {
    secretKey: env.SECRET_KEY ? undefined : loadOrCreateLocalSecret(dataDir),
  })
}

async function withTenants<T>(fn: (tenants: TenantService) => Promise<T>): Promise<T> {
  return withDatabase((db) => fn(new TenantService(db.kysely, systemClock)))
}

/** An admin command's database: waited for (DATABASE_STARTUP_WAIT_SECONDS), migrated, closed. */
async function withDatabase<T>(fn: (db: Db, applied: string[]) => Promise<T>): Promise<T> {
  const { db, applied } = await openMigratedDatabase(config())
  try {
    return await fn(db, applied)
  } finally {
    await db.close()
  }
}

function print(json: boolean, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`)
}

/** Every option of every command; each command reads the ones it knows. */
const OPTIONS = {
  name: { type: 'string' },
  plan: { type: 'string' },
  tenant: { type: 'string' },
  mode: { type: 'string' },
  json: { type: 'boolean', default: false },
  state: { type: 'string' },
  limit: { type: 'string' },
  'no-worker': { type: 'boolean', default: false },
  'suspend-data-limit-12': { type: 'string' },
  'scorm-statements': { type: 'string' },
  email: { type: 'string' },
  role: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const

async function main(argv: string[]): Promise<void> {
  const [command, sub, ...rest] = argv
  const { values, positionals } = parseArgs({
    args:
      command === 'tenant' || command === 'key' || command === 'jobs' || command === 'user'
        ? rest
        : argv.slice(1),
    allowPositionals: true,
    options: OPTIONS,
  })
  // `courseport --help` (or -h, help) names no command: the usage is the answer, not an error.
  const asksHelp = !command || command === '--help' || command === '-h' || command === 'help'
  if (values.help || asksHelp) return void process.stdout.write(`${USAGE}\n`)
  const json = values.json ?? false

  if (command === 'serve') {
    const withWorker = !values['no-worker']
    return runServer(config(withWorker ? 'serve' : 'api'), { withWorker })
  }
  if (command === 'worker') return runWorkerProcess(config('worker'))
  if (command === 'jobs') return jobsCommand(sub, positionals, values, withDatabase)
  if (command === 'backup') return backupCommand(positionals[0], config().databaseUrl, { json })
  if (command === 'migrate') {
    const applied = await withDatabase(async (_db, migrated) => migrated)
    return print(
      json,
      { applied },
      applied.length ? `applied: ${applied.join(', ')}` : 'up to date',
    )
  }
  if (command === 'tenant' && sub === 'create') {
    if (!values.name) throw new UsageError('tenant create needs --name NAME')
    const name = values.name
    const t = await withTenants((s) => s.createTenant({ name, plan: values.plan }))
    const out = { tenant_id: t.tenantId, test_key: t.testKey.key, live_key: t.liveKey.key }
    return print(
      json,
      out,
      `tenant ${t.tenantId} (${t.plan})\ntest key: ${out.test_key}\nlive key: ${out.live_key}`,
    )
  }
  if (command === 'tenant' && sub === 'list') {
    const rows = await withTenants((s) => s.listTenants())
    return print(json, rows, rows.map((r) => `${r.id}\t${r.plan_id}\t${r.name}`).join('\n'))
  }
  if (command === 'tenant' && sub === 'settings') return tenantSettingsCommand(values, json)
  if (command === 'key' && sub === 'create') {
    const mode = values.mode ?? ''
    if (!values.tenant || !isMode(mode))
      throw new UsageError('key create needs --tenant ID --mode test|live')
    const tenantId = values.tenant
    const k = await withTenants((s) => s.createKey(tenantId, mode))
    return print(
      json,
      { key_id: k.id, tenant_id: k.tenantId, mode: k.mode, key: k.key },
      `${k.id}\n${k.key}`,
    )
  }
  if (command === 'key' && sub === 'revoke') {
    const keyId = positionals[0]
    if (!keyId) throw new UsageError('key revoke needs KEY_ID')
    await withTenants((s) => s.revokeKey(keyId))
    return print(json, { revoked: keyId }, `revoked ${keyId}`)
  }
  if (command === 'user') return userCommand(sub, values, config().publicUrl, withDatabase)
  throw new UsageError(`unknown command: ${argv.join(' ')}`)
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError) process.stderr.write(`${err.message}\n\n${USAGE}\n`)
  else if (err instanceof ConfigError) process.stderr.write(`Configuration error: ${err.message}\n`)
  else if (err instanceof DatabaseUnreachableError) process.stderr.write(`${err.message}\n`)
  else if (isAppError(err)) process.stderr.write(`${err.message}\n`)
  else process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exit(err instanceof UsageError ? 64 : 1)
})

/** `tenant settings`: applies the options given, then prints the tenant's settings. */
async function tenantSettingsCommand(
  values: { tenant?: string; 'suspend-data-limit-12'?: string; 'scorm-statements'?: string },
  json: boolean,
): Promise<void> {
  const tenantId = values.tenant
  if (!tenantId) throw new UsageError('tenant settings needs --tenant ID')
  const changes = tenantSettingsChanges(values['suspend-data-limit-12'], values['scorm-statements'])
  const settings = await withTenants((s) => s.updateSettings(tenantId, changes))
  return print(json, settings, JSON.stringify(settings))
}

/** The `tenant settings` options as changes; a bad value is refused naming its option. */
function tenantSettingsChanges(
  limit: string | undefined,
  statements: string | undefined,
): { suspendDataLimit12?: 4096 | 64000; scormStatements?: boolean } {
  const changes: { suspendDataLimit12?: 4096 | 64000; scormStatements?: boolean } = {}
  if (limit !== undefined) {
    if (limit !== '4096' && limit !== '64000') {
      throw new UsageError(`--suspend-data-limit-12 must be 4096 or 64000, not '${limit}'`)
    }
    changes.suspendDataLimit12 = Number(limit) as 4096 | 64000
  }
  if (statements !== undefined) {
    if (statements !== 'on' && statements !== 'off') {
      throw new UsageError(`--scorm-statements must be on or off, not '${statements}'`)
    }
    changes.scormStatements = statements === 'on'
  }
  return changes
}
