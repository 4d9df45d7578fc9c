/**
 * The built-in LRS (issue 13; docs/lrs.md "Performance"): (1) statements stored per second over
 * HTTP, batches of 50 and single POSTs, with the server process's CPU time from /proc
 * (server-cpu.ts) beside each figure; (2) GET of a 100-statement page with each filter once the
 * store holds LRS_SEED statements (rows built by SQL from one statement the LRS stored), with the
 * query's plan; (3) our store and Learning Locker's `xapi-statements` (npm, memory repositories,
 * in process: no HTTP, no auth, so the comparison favours it) in the same run, per CPU second.
 * Set LRS_PEER_DIR to a directory where it is installed (`npm install xapi-statements` there,
 * never in this project). Targets: ≥ 5 000 statements/s stored on 2 cores and ≥ 3× the peer;
 * page p99 < 50 ms.
 *   node bench/lrs.bench.ts          (SQLite; BENCH_DATABASE_URL=postgres://…/fresh_db)
 *   node bench/lrs.bench.ts store    (only (3))
 *   LRS_SEED=1000000 (0: no pages) LRS_SINGLES=4000 LRS_PEER_DIR=/tmp/… PEER_SIZE=50000
 *   LRS_SERVER_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" (node flags for the server)
 */
import { fork, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { CompiledQuery, sql } from 'kysely'
import { Agent, request } from 'undici'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { createContext } from '../src/main/context.ts'
import { createLrsServices } from '../src/modules/lrs/index.ts'
import { statementsPageQuery } from '../src/modules/lrs/statement.repository.ts'
import { parseStatementRequest } from '../src/modules/lrs/statement-query.ts'
import { type CpuUse, startCpu } from './server-cpu.ts'

/** Statements in the store for the page phases (LRS_SEED; 0 skips them). */
const SEED = Number(process.env.LRS_SEED ?? 1_000_000)
const BATCH_STATEMENTS = 20_000
const SINGLE_STATEMENTS = Number(process.env.LRS_SINGLES ?? 4_000)
const CONCURRENCY = 16
const PAGE_REQUESTS = 300
/** The peer's single-statement phase is short: each store costs it more as its memory store grows. */
const PEER_SINGLES = 1_000

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
  process.on('message', async (m: { op: string; count?: number; query?: string }) => {
    if (m.op === 'explain') send({ op: 'explain', plan: await explain(ctx, scope, m.query ?? '') })
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
  // The seed leaves work a store that grew over time would have had done already: hundreds of MB
  // of WAL to checkpoint (SQLite), autovacuum's visibility map (PostgreSQL, whose index-only
  // scans read the heap until then). Done now, not while the page phases time their requests.
  if (pg) await sql`vacuum analyze lrs_statements, lrs_statement_index`.execute(db)
  else {
    await sql`analyze`.execute(db)
    await sql`pragma wal_checkpoint(truncate)`.execute(db)
  }
}

/** The plan of the page query a GET with these parameters runs (EXPLAIN on either dialect). */
async function explain(
  ctx: Awaited<ReturnType<typeof createContext>>,
  scope: { tenantId: string; mode: 'test' },
  query: string,
): Promise<string> {
  const params = Object.fromEntries(new URLSearchParams(query))
  const parsed = parseStatementRequest(params)
  if (parsed.kind !== 'query') return 'not a query'
  const db = ctx.db.kysely
  const page = statementsPageQuery(db, scope, { ...parsed.query, limit: parsed.query.limit + 1 })
  const pg = ctx.db.dialect === 'postgres'
  const text = `${pg ? 'explain (analyze, buffers off, timing off, summary off) ' : 'explain query plan '}${page.sql}`
  const result = await db.executeQuery<Record<string, unknown>>(
    CompiledQuery.raw(text, [...page.parameters]),
  )
  return result.rows
    .map((r) =>
      pg ? String(r['QUERY PLAN']) : `${'  '.repeat(Number(r.parent) ? 1 : 0)}${r.detail}`,
    )
    .join('\n    ')
}

// ---- the load generator ------------------------------------------------------------------------

interface Server {
  pid: number | undefined
  url: string
  key: string
  secret: string
  dialect: string
  call(op: string, extra?: object): Promise<Record<string, unknown>>
  stop(): void
}

async function startServer(): Promise<Server> {
  // LRS_SERVER_ARGS: extra node flags for the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`.
  const execArgv = [...process.execArgv, ...(process.env.LRS_SERVER_ARGS ?? '').split(' ')]
  const child = fork(process.argv[1] as string, ['server'], {
    stdio: 'inherit',
    execArgv: execArgv.filter(Boolean),
  })
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
    pid: child.pid,
    url: String(ready.url),
    key: String(ready.key),
    secret: String(ready.secret),
    dialect: String(ready.dialect),
    async call(op, extra = {}) {
      const done = next(op === 'seed' ? 'seeded' : op)
      child.send({ op, ...extra })
      return done
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

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')

function cpuText(cpu: CpuUse): string {
  const server = cpu.serverCorePercent === null ? '?' : cpu.serverCorePercent.toFixed(0)
  return `server ${server} % of a core, client ${cpu.clientCorePercent.toFixed(0)} %, saturated: ${cpu.saturated}, load ${load()}`
}

/** Bodies are built before the clock starts, so the phase measures the server, not JSON work. */
async function storeBench(server: Server, perRequest: number, total: number) {
  const headers = {
    authorization: `Basic ${Buffer.from(`${server.key}:${server.secret}`).toString('base64')}`,
    'x-experience-api-version': '1.0.3',
    'content-type': 'application/json',
  }
  const requests = total / perRequest
  const bodies = Array.from({ length: requests }, (_, r) => {
    const body = Array.from({ length: perRequest }, (_, i) => statement(r * perRequest + i))
    return JSON.stringify(perRequest === 1 ? body[0] : body)
  })
  const stop = startCpu([server.pid])
  await run(requests, async (r) => {
    const res = await request(`${server.url}/xapi/statements`, {
      method: 'POST',
      headers,
      body: bodies[r],
      dispatcher: agent,
    })
    await res.body.text()
    if (res.statusCode !== 200) throw new Error(`POST answered ${res.statusCode}`)
  })
  const cpu = stop()
  const cpuMs = (cpu.serverCpuSeconds ?? Number.NaN) * 1000
  return {
    rate: total / cpu.wallSeconds,
    seconds: cpu.wallSeconds,
    cpuPerStatementMs: cpuMs / total,
    perServerCpuSecond: total / (cpuMs / 1000),
    cpuMs,
    cpu,
  }
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
  out.singles = await store(1, ${PEER_SINGLES})
  const size = Number(process.env.PEER_SIZE)
  await store(500, Math.max(0, size - ${BATCH_STATEMENTS + PEER_SINGLES}))
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

// Long on purpose: the bench's script, phase after phase, each printing its own line.
async function main() {
  const fmt = (n: number) => n.toFixed(n < 10 ? 2 : 0)
  const results: Record<string, unknown> = { started: new Date().toISOString(), load: load() }
  const server = await startServer()
  console.log(`LRS bench — ${server.dialect}; load average ${load()} (shared 2-core machine)`)
  for (const [name, per, total] of [
    ['batches of 50', 50, BATCH_STATEMENTS],
    ['single POSTs', 1, SINGLE_STATEMENTS],
  ] as const) {
    if (total === 0) continue
    const r = await storeBench(server, per, total)
    results[`store ${name}`] = r
    console.log(
      `store, ${name}: ${fmt(r.rate)} statements/s (${total} in ${fmt(r.seconds)} s); server CPU ${r.cpuPerStatementMs.toFixed(3)} ms/statement = ${fmt(r.perServerCpuSecond)} statements per server CPU second (${cpuText(r.cpu)})`,
    )
  }
  if (SEED > 0) {
    const t0 = performance.now()
    await server.call('seed', { count: SEED })
    console.log(`seeded ${SEED} statements by SQL in ${fmt((performance.now() - t0) / 1000)} s`)
    const agentFilter = encodeURIComponent(JSON.stringify({ mbox: 'mailto:learner-7@example.com' }))
    const verbFilter = encodeURIComponent('http://adlnet.gov/expapi/verbs/answered')
    const activity = encodeURIComponent('http://example.com/course/0/page/0')
    // The seeded rows are stored 1 ms apart from 2020-01-01: a 10-minute window in the middle.
    const window = '&since=2020-01-01T00:05:00.000Z&until=2020-01-01T00:15:00.000Z'
    for (const [name, query] of [
      ['newest page', ''],
      ['by agent', `&agent=${agentFilter}`],
      ['by verb', `&verb=${verbFilter}`],
      ['by activity', `&activity=${activity}`],
      ['since/until', window],
      ['by agent, since/until', `&agent=${agentFilter}${window}`],
      ['by agent, ascending', `&agent=${agentFilter}&ascending=true`],
    ] as const) {
      const plan = await server.call('explain', { query: `limit=100${query}` })
      const stop = startCpu([server.pid])
      const page = await pageBench(server, query)
      const cpu = stop()
      const cpuMs = ((cpu.serverCpuSeconds ?? Number.NaN) * 1000) / PAGE_REQUESTS
      results[`page ${name}`] = { ...page, cpuMsPerRequest: cpuMs, cpu, plan: plan.plan }
      console.log(
        `GET 100-statement page, ${name}: p50 ${fmt(page.p50)} ms, p99 ${fmt(page.p99)} ms (${page.count} statements; server CPU ${fmt(cpuMs)} ms/request; load ${load()})\n    ${String(plan.plan)}`,
      )
    }
  }
  server.stop()
  const ours = await ourInProcess(50, BATCH_STATEMENTS)
  results['in process ours'] = ours
  console.log(
    `in process, ours (SQLite, batches of 50): ${fmt(ours.rate)} statements/s, CPU ${fmt(ours.cpuMs)} ms = ${fmt((BATCH_STATEMENTS / ours.cpuMs) * 1000)} statements per CPU second`,
  )
  const peer = await peerBench()
  results.peer = peer
  if (typeof peer === 'string' || peer.error) {
    console.log(
      `in process, xapi-statements (memory): ${typeof peer === 'string' ? peer : peer.error}`,
    )
  } else {
    const b = peer.batches
    const s1 = peer.singles
    const p = peer.page
    if (b) {
      const perCpu = (BATCH_STATEMENTS / b.cpuMs) * 1000
      console.log(
        `in process, xapi-statements (memory), batches of 50: ${fmt(b.rate)} statements/s, CPU ${fmt(b.cpuMs)} ms = ${fmt(perCpu)} statements per CPU second`,
      )
      const http = results['store batches of 50'] as { rate: number; perServerCpuSecond: number }
      console.log(
        `ratio, batches of 50 (ours over HTTP / xapi-statements in process): ${(http.perServerCpuSecond / perCpu).toFixed(2)}× per CPU second, ${(http.rate / b.rate).toFixed(2)}× per wall second; ours in process: ${(((BATCH_STATEMENTS / ours.cpuMs) * 1000) / perCpu).toFixed(2)}× per CPU second`,
      )
    }
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
  const dir = join(import.meta.dirname, 'results')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, `lrs-${server.dialect}.json`), JSON.stringify(results, null, 2))
}

/** `node bench/lrs.bench.ts store`: only the in-process store of ours and of the peer. */
async function storeOnly() {
  const fmt = (n: number) => n.toFixed(n < 10 ? 2 : 0)
  console.log(`in-process store only; load average ${load()}`)
  const ours = await ourInProcess(50, BATCH_STATEMENTS)
  const oursPerCpu = (BATCH_STATEMENTS / ours.cpuMs) * 1000
  console.log(
    `in process, ours (SQLite, batches of 50): ${fmt(ours.rate)} statements/s, ${fmt(oursPerCpu)} per CPU second; load ${load()}`,
  )
  const peer = await peerBench()
  if (typeof peer === 'string' || !peer.batches) return console.log(`peer: ${JSON.stringify(peer)}`)
  const perCpu = (BATCH_STATEMENTS / peer.batches.cpuMs) * 1000
  console.log(
    `in process, xapi-statements (memory), batches of 50: ${fmt(peer.batches.rate)} statements/s, ${fmt(perCpu)} per CPU second; ours ${(oursPerCpu / perCpu).toFixed(2)}× per CPU second; load ${load()}`,
  )
  if (peer.singles) console.log(`xapi-statements single: ${JSON.stringify(peer.singles)}`)
  if (peer.page) console.log(`xapi-statements page: ${JSON.stringify(peer.page)}`)
}

if (process.argv[2] === 'server') await serve()
else if (process.argv[2] === 'store') await storeOnly()
else await main()
