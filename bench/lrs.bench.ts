/**
 * The built-in LRS (issue 13): (1) statements stored per second over HTTP, batches of 50 and
 * single POSTs, with the server's own CPU time beside the figure; (2) GET of a 100-statement page
 * (unfiltered, by agent, by verb) once the store holds 1 000 000 statements (rows built by SQL
 * from one statement the LRS stored itself). Peer in the same run: Learning Locker's
 * `xapi-statements` (npm) with its in-memory repository, called in process (no HTTP, no auth,
 * so the comparison favours it); set LRS_PEER_DIR to a directory where it is installed
 * (`npm install xapi-statements` there, never in this project). Our store called in process is
 * printed beside it. Targets: ≥ 5 000 statements/s stored on 2 cores; page p99 < 50 ms.
 *   node bench/lrs.bench.ts      (SQLite; BENCH_DATABASE_URL=postgres://… for PostgreSQL)
 *   LRS_SEED=1000000 (default) LRS_PEER_DIR=/tmp/…
 */
import { fork, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { Agent, request } from 'undici'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { createContext } from '../src/main/context.ts'
import { createLrsServices } from '../src/modules/lrs/index.ts'

const SEED = Number(process.env.LRS_SEED ?? 1_000_000)
const BATCH_STATEMENTS = 20_000
const SINGLE_STATEMENTS = 4_000
const CONCURRENCY = 16
const PAGE_REQUESTS = 300

function statement(i: number) {
  return {
    id: randomUUID(),
    actor: { objectType: 'Agent', mbox: `mailto:learner-${i % 1000}@example.com`, name: 'L' },
    verb: { id: `http://adlnet.gov/expapi/verbs/${i % 2 ? 'experienced' : 'answered'}` },
    object: {
      objectType: 'Activity',
      id: `http://example.com/course/${i % 50}/page/${i % 7}`,
      definition: { name: { 'en-US': 'Page' } },
    },
    result: { completion: true, score: { scaled: 0.5 }, duration: 'PT12S' },
    context: { registration: randomUUID() },
    timestamp: new Date().toISOString(),
  }
}

// ---- the server process ------------------------------------------------------------------------

async function serve() {
  const dataDir = mkdtempSync(join(tmpdir(), 'cp-bench-lrs-'))
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: process.env.BENCH_DATABASE_URL,
    SECRET_KEY: 'bench-secret-bench-secret-bench-secret-0000',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    PUBLIC_URL: 'http://127.0.0.1:1',
    CONTENT_URL: 'http://127.0.0.1:2',
    CONTENT_ORIGINS: 'single',
  })
  const ctx = await createContext(config)
  const tenant = await ctx.services.tenants.createTenant({ name: 'bench', plan: 'enterprise' })
  const scope = { tenantId: tenant.tenantId, mode: 'test' as const }
  const lrs = createLrsServices(ctx.db.kysely, ctx.clock)
  const credential = await lrs.credentials.create(scope, { label: 'bench' })
  const api = await buildApp(ctx)
  const url = await api.listen({ host: '127.0.0.1', port: 0 })
  const send = (m: unknown) => process.send?.(m)
  process.on('message', async (m: { op: string; count?: number }) => {
    if (m.op === 'cpu') send({ op: 'cpu', cpu: process.cpuUsage() })
    if (m.op === 'seed') {
      await seed(ctx, scope, m.count ?? 0)
      send({ op: 'seeded' })
    }
    if (m.op === 'stop') {
      await api.close()
      await ctx.close()
      rmSync(dataDir, { recursive: true, force: true })
      process.exit(0)
    }
  })
  send({
    op: 'ready',
    url,
    key: credential.key,
    secret: credential.secret,
    dialect: ctx.db.dialect,
  })
}

/**
 * `count` statements copied by SQL from one the LRS stored (its row and index rows), each with
 * its own id, stored time and one of 1 000 learners, so every filter seeks as in production.
 */
async function seed(
  ctx: Awaited<ReturnType<typeof createContext>>,
  scope: { tenantId: string; mode: 'test' },
  count: number,
) {
  const lrs = createLrsServices(ctx.db.kysely, ctx.clock)
  const caller = { ...scope, credentialId: null, authority: { mbox: 'mailto:seed@example.com' } }
  const template = statement(0)
  await lrs.statements.store(caller, { statements: [template], parts: [], version: '1.0.3' })
  const db = ctx.db.kysely
  const pg = ctx.db.dialect === 'postgres'
  const tid = template.id
  const idOf = pg
    ? sql`lpad(to_hex(n), 8, '0') || '-0000-4000-8000-' || lpad(to_hex(n), 12, '0')`
    : sql`printf('%08x-0000-4000-8000-%012x', n, n)`
  const storedOf = pg
    ? sql`to_char(timestamp '2020-01-01' + n * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : sql`strftime('%Y-%m-%dT%H:%M:%fZ', '2020-01-01', '+' || (n / 1000.0) || ' seconds')`
  const learner = sql`'learner-' || cast(n % 1000 as integer) || '@'`
  const step = 100_000
  for (let from = 1; from <= count; from += step) {
    const to = Math.min(count, from + step - 1)
    const numbers = pg
      ? sql`(select generate_series(${from}::int, ${to}::int) as n)`
      : sql`(with recursive s(n) as (select cast(${from} as integer) union all select n + 1 from s where n < ${to}) select n from s)`
    await db.transaction().execute(async (trx) => {
      await sql`insert into lrs_statements (tenant_id, mode, id, stored, timestamp, verb_id, voided, voids, credential_id, statement)
        select t.tenant_id, t.mode, ${idOf}, ${storedOf}, t.timestamp, t.verb_id, 0, null, null,
          replace(replace(t.statement, ${tid}, ${idOf}), 'learner-0@', ${learner})
        from ${numbers} as g, lrs_statements t
        where t.tenant_id = ${scope.tenantId} and t.mode = 'test' and t.id = ${tid}`.execute(trx)
      await sql`insert into lrs_statement_index (tenant_id, mode, kind, value, stored, statement_id)
        select i.tenant_id, i.mode, i.kind, replace(i.value, 'learner-0@', ${learner}), ${storedOf}, ${idOf}
        from ${numbers} as g, lrs_statement_index i
        where i.tenant_id = ${scope.tenantId} and i.mode = 'test' and i.statement_id = ${tid}`.execute(
        trx,
      )
    })
    process.stdout.write(`  seeded ${to}\r`)
  }
  process.stdout.write('\n')
  await sql`analyze`.execute(db)
}

// ---- the load generator ------------------------------------------------------------------------

interface Server {
  url: string
  key: string
  secret: string
  dialect: string
  cpu(): Promise<number>
  call(op: string, extra?: object): Promise<void>
  stop(): void
}

async function startServer(): Promise<Server> {
  const child = fork(process.argv[1] as string, ['server'], { stdio: 'inherit' })
  const waiters = new Map<string, (m: Record<string, unknown>) => void>()
  child.on('message', (m: Record<string, unknown>) => {
    waiters.get(String(m.op))?.(m)
  })
  const next = (op: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      waiters.set(op, resolve)
    })
  const ready = await next('ready')
  return {
    url: String(ready.url),
    key: String(ready.key),
    secret: String(ready.secret),
    dialect: String(ready.dialect),
    async cpu() {
      const got = next('cpu')
      child.send({ op: 'cpu' })
      const { cpu } = (await got) as unknown as { cpu: { user: number; system: number } }
      return (cpu.user + cpu.system) / 1000
    },
    async call(op, extra = {}) {
      const done = next(op === 'seed' ? 'seeded' : op)
      child.send({ op, ...extra })
      await done
    },
    stop: () => child.send({ op: 'stop' }),
  }
}

const agent = new Agent({ connections: CONCURRENCY, pipelining: 1 })

async function run(tasks: number, worker: (i: number) => Promise<void>) {
  let next = 0
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < tasks) await worker(next++)
    }),
  )
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

async function storeBench(server: Server, perRequest: number, total: number) {
  const headers = {
    authorization: `Basic ${Buffer.from(`${server.key}:${server.secret}`).toString('base64')}`,
    'x-experience-api-version': '1.0.3',
    'content-type': 'application/json',
  }
  const requests = total / perRequest
  const cpu0 = await server.cpu()
  const t0 = performance.now()
  await run(requests, async (r) => {
    const body = Array.from({ length: perRequest }, (_, i) => statement(r * perRequest + i))
    const res = await request(`${server.url}/xapi/statements`, {
      method: 'POST',
      headers,
      body: JSON.stringify(perRequest === 1 ? body[0] : body),
      dispatcher: agent,
    })
    await res.body.text()
    if (res.statusCode !== 200) throw new Error(`POST answered ${res.statusCode}`)
  })
  const seconds = (performance.now() - t0) / 1000
  const cpuMs = (await server.cpu()) - cpu0
  return { rate: total / seconds, seconds, cpuPerStatementMs: cpuMs / total, cpuMs }
}

async function pageBench(server: Server, query: string) {
  const headers = {
    authorization: `Basic ${Buffer.from(`${server.key}:${server.secret}`).toString('base64')}`,
    'x-experience-api-version': '1.0.3',
  }
  const times: number[] = []
  let count = 0
  for (let i = 0; i < PAGE_REQUESTS; i++) {
    const t0 = performance.now()
    const res = await request(`${server.url}/xapi/statements?limit=100${query}`, {
      headers,
      dispatcher: agent,
    })
    const body = (await res.body.json()) as { statements: unknown[] }
    times.push(performance.now() - t0)
    count = body.statements.length
  }
  times.sort((a, b) => a - b)
  return { p50: percentile(times, 50), p99: percentile(times, 99), count }
}

/**
 * Learning Locker's xapi-statements with its memory repositories, in a child process started in
 * LRS_PEER_DIR (its stderr, where it logs failing Mongo connections of its unused auth repository,
 * is dropped). Its service is called directly: batches of 50, single statements, then a
 * 100-statement page at the size it reached (PEER_SIZE; 1 000 000 in its memory store is beyond
 * this machine's patience and memory).
 */
const PEER_SCRIPT = `
process.env.MODELS_REPO = 'memory'; process.env.STORAGE_REPO = 'memory'
process.env.SERVICE_AWAIT_UPDATES = 'true'
const { randomUUID } = require('node:crypto')
const service = require('xapi-statements/dist/tester.js').default
const client = { _id: '5988f0f00000000000000002', title: 't', organisation: '5988f0f00000000000000000',
  lrs_id: '5988f0f00000000000000001', isTrusted: true, scopes: ['all'],
  authority: { objectType: 'Agent', mbox: 'mailto:authority@example.com' } }
const statement = ${statement.toString()}
const pct = (a, p) => a[Math.min(a.length - 1, Math.floor(p / 100 * a.length))]
;(async () => {
  const out = {}
  const store = async (per, total) => {
    const c0 = process.cpuUsage(); const t0 = performance.now()
    for (let i = 0; i < total; i += per) {
      await service.storeStatements({ models: Array.from({ length: per }, (_, j) => statement(i + j)), attachments: [], client })
    }
    const c = process.cpuUsage(c0)
    return { rate: total / ((performance.now() - t0) / 1000), cpuMs: (c.user + c.system) / 1000 }
  }
  out.batches = await store(50, ${BATCH_STATEMENTS})
  out.singles = await store(1, ${SINGLE_STATEMENTS})
  const size = Number(process.env.PEER_SIZE)
  await store(500, Math.max(0, size - ${BATCH_STATEMENTS + SINGLE_STATEMENTS}))
  const times = []
  for (let i = 0; i < 100; i++) {
    const t0 = performance.now()
    const r = await service.getStatements({ client, limit: 100, agent: { mbox: 'mailto:learner-7@example.com' } })
    times.push(performance.now() - t0)
    out.count = r.statements.length
  }
  times.sort((a, b) => a - b)
  out.page = { size, p50: pct(times, 50), p99: pct(times, 99) }
  process.stdout.write(JSON.stringify(out) + '\\n')
  process.exit(0)
})().catch((e) => { process.stdout.write(JSON.stringify({ error: String(e) }) + '\\n'); process.exit(1) })
`

interface PeerResult {
  batches?: { rate: number; cpuMs: number }
  singles?: { rate: number; cpuMs: number }
  page?: { size: number; p50: number; p99: number }
  count?: number
  error?: string
}

async function peerBench(): Promise<PeerResult | string> {
  const dir = process.env.LRS_PEER_DIR
  if (!dir) return 'not run (LRS_PEER_DIR unset)'
  const child = spawn(process.execPath, ['-e', PEER_SCRIPT], {
    cwd: dir,
    env: { ...process.env, PEER_SIZE: process.env.PEER_SIZE ?? '50000' },
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  let text = ''
  child.stdout.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8')
  })
  const [code] = (await once(child, 'exit')) as [number]
  const line = text.trim().split('\n').at(-1) ?? ''
  try {
    return JSON.parse(line) as PeerResult
  } catch {
    return `could not run (exit ${code}): ${line.slice(0, 200)}`
  }
}

/** Our StatementService in process over its own fresh SQLite database (the peer's conditions). */
async function ourInProcess(perCall: number, total: number) {
  const dataDir = mkdtempSync(join(tmpdir(), 'cp-bench-lrs-inproc-'))
  const config = loadConfig({
    DATA_DIR: dataDir,
    SECRET_KEY: 'bench-secret-bench-secret-bench-secret-0000',
    LOG_LEVEL: 'silent',
    PUBLIC_URL: 'http://127.0.0.1:1',
    CONTENT_URL: 'http://127.0.0.1:2',
    CONTENT_ORIGINS: 'single',
  })
  const ctx = await createContext(config)
  const tenant = await ctx.services.tenants.createTenant({ name: 'bench', plan: 'enterprise' })
  const lrs = createLrsServices(ctx.db.kysely, ctx.clock)
  const caller = {
    tenantId: tenant.tenantId,
    mode: 'test' as const,
    credentialId: null,
    authority: { mbox: 'mailto:bench@example.com' },
  }
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  for (let i = 0; i < total; i += perCall) {
    const statements = Array.from({ length: perCall }, (_, j) => statement(i + j))
    await lrs.statements.store(caller, { statements, parts: [], version: '1.0.3' })
  }
  const seconds = (performance.now() - t0) / 1000
  const cpu = process.cpuUsage(cpu0)
  await ctx.close()
  rmSync(dataDir, { recursive: true, force: true })
  return { rate: total / seconds, cpuMs: (cpu.user + cpu.system) / 1000 }
}

async function main() {
  const fmt = (n: number) => n.toFixed(n < 10 ? 2 : 0)
  const server = await startServer()
  console.log(`LRS bench — ${server.dialect}; shared 2-core machine, figures vary with other load`)
  const batches = await storeBench(server, 50, BATCH_STATEMENTS)
  console.log(
    `store, batches of 50: ${fmt(batches.rate)} statements/s (${BATCH_STATEMENTS} in ${fmt(batches.seconds)} s); server CPU ${fmt(batches.cpuMs)} ms = ${batches.cpuPerStatementMs.toFixed(3)} ms/statement`,
  )
  const singles = await storeBench(server, 1, SINGLE_STATEMENTS)
  console.log(
    `store, single POSTs:  ${fmt(singles.rate)} statements/s (${SINGLE_STATEMENTS} in ${fmt(singles.seconds)} s); server CPU ${fmt(singles.cpuMs)} ms = ${singles.cpuPerStatementMs.toFixed(3)} ms/statement`,
  )
  const t0 = performance.now()
  await server.call('seed', { count: SEED })
  console.log(`seeded ${SEED} statements by SQL in ${fmt((performance.now() - t0) / 1000)} s`)
  const agentFilter = encodeURIComponent(JSON.stringify({ mbox: 'mailto:learner-7@example.com' }))
  const verbFilter = encodeURIComponent('http://adlnet.gov/expapi/verbs/answered')
  for (const [name, query] of [
    ['newest page', ''],
    ['by agent', `&agent=${agentFilter}`],
    ['by verb', `&verb=${verbFilter}`],
  ] as const) {
    const cpu0 = await server.cpu()
    const page = await pageBench(server, query)
    const cpuMs = ((await server.cpu()) - cpu0) / PAGE_REQUESTS
    console.log(
      `GET 100-statement page, ${name}: p50 ${fmt(page.p50)} ms, p99 ${fmt(page.p99)} ms (${page.count} statements; server CPU ${fmt(cpuMs)} ms/request)`,
    )
  }
  server.stop()
  const ours = await ourInProcess(50, BATCH_STATEMENTS)
  console.log(
    `in process, ours (SQLite, batches of 50): ${fmt(ours.rate)} statements/s, CPU ${fmt(ours.cpuMs)} ms`,
  )
  const peer = await peerBench()
  if (typeof peer === 'string' || peer.error) {
    console.log(
      `in process, xapi-statements (memory): ${typeof peer === 'string' ? peer : peer.error}`,
    )
  } else {
    const b = peer.batches
    const s1 = peer.singles
    const p = peer.page
    if (b)
      console.log(
        `in process, xapi-statements (memory), batches of 50: ${fmt(b.rate)} statements/s, CPU ${fmt(b.cpuMs)} ms`,
      )
    if (s1)
      console.log(
        `in process, xapi-statements (memory), single: ${fmt(s1.rate)} statements/s, CPU ${fmt(s1.cpuMs)} ms`,
      )
    if (p)
      console.log(
        `in process, xapi-statements (memory), 100-statement page by agent at ${p.size}: p50 ${fmt(p.p50)} ms, p99 ${fmt(p.p99)} ms (${peer.count} statements)`,
      )
  }
  await agent.close()
}

if (process.argv[2] === 'server') await serve()
else await main()
