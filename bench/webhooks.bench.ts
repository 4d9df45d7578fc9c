/**
 * Webhooks: (1) fan-out of 10 000 audit events of 10 tenants (2 endpoints each, a quarter of the
 * events audit-only) into deliveries; (2) deliveries per second to a local HTTPS receiver (its own
 * process, keep-alive) through a real worker: claim, sign, send, record; (3) a heavier fan-out,
 * 10 000 events each for 20 endpoints. Targets (issue 4): fan-out of 10 000 events < 10 s;
 * ≥ 1 000 deliveries/s on 2 cores.
 *   node bench/webhooks.bench.ts          (SQLite, and PostgreSQL when BENCH_DATABASE_URL or
 *                                          postgres://postgres@127.0.0.1:5432/test answers)
 */
import { type ChildProcess, fork } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { loadConfig } from '../src/config.ts'
import { type Db, migrateToLatest, openDatabase } from '../src/infra/db/database.ts'
import type { Dialect } from '../src/infra/db/schema.ts'
import { Worker } from '../src/infra/queue/index.ts'
import { taskRegistry } from '../src/jobs/registry.ts'
import { createContext } from '../src/main/context.ts'
import { newId, randomBase62 } from '../src/shared/ids.ts'

const here = dirname(fileURLToPath(import.meta.url))
const CA = readFileSync(join(here, '../test/fixtures/tls/ca.crt'))
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const FANOUT_EVENTS = 10_000
const SEND_EVENTS = 500
const ENDPOINTS = 20
const TYPES = ['package.archived', 'session.completed', 'package.launched', 'package.created']

async function database(dialect: Dialect): Promise<{ db: Db; url: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'cp-bench-webhooks-'))
    const url = `sqlite:${join(dir, 'bench.db')}`
    const db = openDatabase(url)
    return { db, url, drop: async () => rmSync(dir, { recursive: true, force: true }) }
  }
  const name = `cp_bench_${randomBase62(10).toLowerCase()}`
  const admin = new pg.Client({ connectionString: PG_URL })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(PG_URL)
  url.pathname = `/${name}`
  const db = openDatabase(url.toString())
  return {
    db,
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_URL })
      await c.connect()
      await c.query(`drop database if exists ${name} with (force)`)
      await c.end()
    },
  }
}

async function postgresAnswers(): Promise<boolean> {
  const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 })
  try {
    await c.connect()
    return true
  } catch {
    return false
  } finally {
    await c.end().catch(() => {})
  }
}

async function startReceiver(): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(join(here, 'webhooks.receiver.ts'), [], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  })
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject)
    child.stdout?.once('data', (d) => resolve(Number(String(d).trim())))
  })
  return { child, port }
}

function receiverCounts(child: ChildProcess): Promise<{ connections: number; requests: number }> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m as { connections: number; requests: number }))
    child.send('counts')
  })
}

async function insertEvents(
  db: Db,
  tenantIds: readonly string[],
  n: number,
  types: readonly string[],
): Promise<void> {
  const occurredAt = new Date(Date.now() + 1000).toISOString()
  const rows = Array.from({ length: n }, (_, i) => ({
    id: newId('evt'),
    tenant_id: tenantIds[i % tenantIds.length] as string,
    mode: 'live' as const,
    type: types[i % types.length] as string,
    entity_type: 'package',
    entity_id: `pkg_${i}`,
    severity: 'info' as const,
    data: JSON.stringify({ package_id: `pkg_${i}`, title: `Course ${i}` }),
    occurred_at: occurredAt,
    fanned_out_at: null,
  }))
  for (let i = 0; i < rows.length; i += 500) {
    await db.kysely
      .insertInto('audit_events')
      .values(rows.slice(i, i + 500))
      .execute()
  }
}

async function run(dialect: Dialect, port: number, receiver: ChildProcess) {
  const target = await database(dialect)
  await migrateToLatest(target.db)
  const dataDir = mkdtempSync(join(tmpdir(), 'cp-bench-webhooks-data-'))
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: target.url,
    SECRET_KEY: 'bench-secret-key-bench-secret-key-0123456789',
    LOG_LEVEL: 'silent',
  })
  const ctx = await createContext(config, {
    db: target.db,
    webhooks: { ca: CA, allowAddresses: ['127.0.0.1'] },
  })
  const { webhooks, tenants } = ctx.services
  const register = async (tenantId: string, path: string, eventScope: 'all' | 'packages') =>
    webhooks.create(
      { tenantId, mode: 'live' },
      { url: `https://127.0.0.1:${port}${path}`, secret: 'bench-signing-secret-0123', eventScope },
    )
  try {
    // (1) fan-out: 10 000 events of 10 tenants with 2 endpoints each (a quarter audit-only).
    const fanTenants: string[] = []
    for (let i = 0; i < 10; i++) {
      const t = await tenants.createTenant({ name: `fan-${i}` })
      fanTenants.push(t.tenantId)
      await register(t.tenantId, `/fan-${i}-all`, 'all')
      await register(t.tenantId, `/fan-${i}-packages`, 'packages')
    }
    await insertEvents(target.db, fanTenants, FANOUT_EVENTS, TYPES)
    let started = performance.now()
    const fanned = await webhooks.deliveries.fanOut()
    const fanoutSeconds = (performance.now() - started) / 1000
    // Those deliveries are not the subject of (2): park their endpoints.
    await target.db.kysely.updateTable('webhook_endpoints').set({ status: 'disabled' }).execute()

    // (2) sending: 500 events × 20 endpoints of one tenant = 10 000 deliveries.
    const tenant = await tenants.createTenant({ name: 'send' })
    for (let i = 0; i < ENDPOINTS; i++) await register(tenant.tenantId, `/send-${i}`, 'all')
    await insertEvents(target.db, [tenant.tenantId], SEND_EVENTS, ['package.archived'])
    const queued = await webhooks.deliveries.fanOut()
    const before = await receiverCounts(receiver)
    const worker = new Worker(ctx.db, taskRegistry(ctx), {
      concurrency: config.worker.concurrency,
      pollIntervalMs: 50,
      logger: { info() {}, warn() {}, error: (o, m) => console.error(m, o) },
    })
    started = performance.now()
    worker.start()
    const delivered = async () =>
      Number(
        (
          await target.db.kysely
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.countAll<number | string>().as('n'))
            .where('status', '=', 'delivered')
            .executeTakeFirstOrThrow()
        ).n,
      )
    while ((await delivered()) < queued.deliveries) await sleep(50)
    const sendSeconds = (performance.now() - started) / 1000
    await worker.stop()
    const after = await receiverCounts(receiver)
    const latencies = (
      await target.db.kysely.selectFrom('webhook_delivery_attempts').select('latency_ms').execute()
    )
      .map((r) => Number(r.latency_ms))
      .sort((a, b) => a - b)
    // (3) a heavier fan-out: 10 000 events, every one for all 20 endpoints of the tenant.
    await insertEvents(target.db, [tenant.tenantId], FANOUT_EVENTS, ['package.archived'])
    started = performance.now()
    const heavy = await webhooks.deliveries.fanOut()
    const heavySeconds = (performance.now() - started) / 1000
    const pct = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]
    return {
      fanout: {
        events: fanned.events,
        deliveries: fanned.deliveries,
        seconds: fanoutSeconds,
        eventsPerSecond: Math.round(fanned.events / fanoutSeconds),
      },
      fanoutTwentyEndpoints: {
        events: heavy.events,
        deliveries: heavy.deliveries,
        seconds: heavySeconds,
      },
      send: {
        deliveries: queued.deliveries,
        endpoints: ENDPOINTS,
        seconds: sendSeconds,
        deliveriesPerSecond: Math.round(queued.deliveries / sendSeconds),
        newTlsConnections: after.connections - before.connections,
        requests: after.requests - before.requests,
        latencyMs: { p50: pct(0.5), p99: pct(0.99) },
      },
    }
  } finally {
    await ctx.close()
    await target.db.close()
    await target.drop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const { child, port } = await startReceiver()
const results: Record<string, unknown> = {}
try {
  const dialects: Dialect[] = (await postgresAnswers()) ? ['sqlite', 'postgres'] : ['sqlite']
  for (const dialect of dialects) {
    const r = await run(dialect, port, child)
    results[dialect] = r
    console.log(
      `[${dialect}] fan-out: ${r.fanout.events} events → ${r.fanout.deliveries} deliveries in ` +
        `${r.fanout.seconds.toFixed(2)} s (target < 10 s)`,
    )
    console.log(
      `[${dialect}] fan-out, 20 endpoints per event: ${r.fanoutTwentyEndpoints.events} events → ` +
        `${r.fanoutTwentyEndpoints.deliveries} deliveries in ${r.fanoutTwentyEndpoints.seconds.toFixed(2)} s`,
    )
    console.log(
      `[${dialect}] sending: ${r.send.deliveries} deliveries to ${r.send.endpoints} endpoints in ` +
        `${r.send.seconds.toFixed(2)} s = ${r.send.deliveriesPerSecond}/s (target ≥ 1 000/s); ` +
        `${r.send.newTlsConnections} TLS connections for ${r.send.requests} requests (keep-alive); ` +
        `latency p50 ${r.send.latencyMs.p50} ms, p99 ${r.send.latencyMs.p99} ms`,
    )
  }
} finally {
  child.kill()
}
const resultsDir = join(here, 'results')
mkdirSync(resultsDir, { recursive: true })
writeFileSync(
  join(resultsDir, 'webhooks.json'),
  `${JSON.stringify({ targets: { fanoutSeconds: '< 10', deliveriesPerSecond: '>= 1000' }, ...results }, null, 2)}\n`,
)
