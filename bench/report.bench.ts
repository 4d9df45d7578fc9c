/**
 * The learner-progress report on a large tenant (issue 12.3): target < 300 ms with 200 000
 * sessions. `GET /api/customer/reports/learner-progress` in several shapes, each with p50/p99
 * of the wall time and the server's own CPU per request (/proc/<pid>/stat), against a baseline
 * measured the same way in the same run: the first page of the plain sessions list
 * (`GET /api/customer/sessions?limit=50`). The report's old single query (a window-function
 * median over every session in the range, before migration 0023) is timed once too, from this
 * process, for the before/after.
 *   node bench/report.bench.ts [sessions=200000] [repeats=40]
 *   BENCH_DATABASE_URL=postgres://…/db   runs on PostgreSQL too (a fresh database beside it)
 *
 * Data, by SQL (INSERT … SELECT over a recursive CTE on SQLite, generate_series on PostgreSQL):
 * 8 packages (uploaded), 12 dispatches plus sessions without one, 40 000 learners with ~5
 * attempts each, start times spread over 6 months, a third without a score, a quarter
 * incomplete, times from 0 to ~2 hours. The rollup (report_daily, in binary) and the learner
 * numbers (report_learner_ids) are then built by migration 0024's back-fill (its time is
 * printed), as they would be for an existing tenant. Results go to
 * bench/results/report.json (report-postgres.json).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'kysely'
import pg from 'pg'
import { Agent, request } from 'undici'
import { type Db, openDatabase } from '../src/infra/db/database.ts'
import { rebuildReportRollups } from '../src/infra/db/migrations/0024-report-learner-sets.ts'
import type { Dialect } from '../src/infra/db/schema.ts'
import { AccountService } from '../src/modules/accounts/account.service.ts'
import { systemClock } from '../src/shared/clock.ts'
import { randomBase62 } from '../src/shared/ids.ts'
import { type BenchServer, startBenchServer, uploadGolfPackage } from './bench-server.client.ts'
import { insertSeries } from './bulk-sessions.ts'
import { cpuSeconds, startCpu } from './server-cpu.ts'

const here = dirname(fileURLToPath(import.meta.url))
const total = Number(process.argv[2] ?? 200_000)
const repeats = Number(process.argv[3] ?? 40)
const PACKAGES = 8
const agent = new Agent({ connections: 4 })

/** The sessions, by one INSERT … SELECT per package. */
async function build(db: Db, tenantId: string, packages: Array<{ id: string; version: string }>) {
  const pg_ = db.dialect === 'postgres'
  const per = Math.ceil(total / packages.length)
  for (const [p, pkg] of packages.entries()) {
    const from = p * per + 1
    const to = Math.min(total, (p + 1) * per)
    // 6 months from 2026-01-01, a session every ~78 s, shuffled by a multiplicative hash.
    const offset = '((i * 7919) % 15552000)'
    const at = pg_
      ? `to_char(timestamp '2026-01-01' + ${offset} * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
      : `strftime('%Y-%m-%dT%H:%M:%fZ', 1767225600 + ${offset}, 'unixepoch')`
    const id = pg_ ? `'ses_bench' || lpad(i::text, 9, '0')` : `'ses_bench' || printf('%09d', i)`
    const learner = `'learner-' || ((i * 31) % 40000)`
    const dispatch = `case when i % 13 = 0 then null else 'dsp_bench_' || ((i / 7) % 12) end`
    const completion = `case when i % 4 = 0 then 'incomplete' else 'completed' end`
    const success = `case when i % 5 = 0 then 'unknown' when i % 3 = 0 then 'failed' else 'passed' end`
    const score = `case when i % 3 = 1 then null else ((i * 37) % 101) / 100.0 end`
    const time = `case when i % 17 = 0 then 0 else ((i * 1009) % 7200) + (i % 7) * 0.25 end`
    const select = `select ${id}, '${tenantId}', 'test', '${pkg.id}', '${pkg.version}',
        ${learner}, ${learner}, ${dispatch}, 1 + (i % 5), 0, '1.2', ${completion}, ${success},
        ${score}, null, null, null, 100, 'PT10M', ${time}, 0, null, 1, ${at}, ${at}, ${at},
        null, null`
    await insertSeries(db, select, from, to)
  }
  if (pg_) await sql`analyze sessions`.execute(db.kysely)
}

async function signIn(server: BenchServer, db: Db, tenantId: string): Promise<string> {
  const accounts = new AccountService({ db: db.kysely, clock: systemClock })
  const invite = await accounts.createInvite(
    tenantId,
    { email: `bench-${randomBase62(6)}@example.test`, role: 'viewer' },
    null,
  )
  // A new connection: the uploads' idle sockets may have been closed during the build.
  const res = await request(`${server.api}/api/customer/invites/${invite.token}/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ password: 'bench password 1234' }),
    dispatcher: new Agent({ connections: 1 }),
  })
  const text = await res.body.text()
  if (res.statusCode !== 200) throw new Error(`accept: ${res.statusCode} ${text}`)
  const setCookie = res.headers['set-cookie']
  const all = Array.isArray(setCookie) ? setCookie : [setCookie ?? '']
  const cookie = all.find((c) => c.startsWith('cp_session='))
  return (cookie ?? '').split(';')[0] as string
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number

/**
 * `repeats` sequential GETs after 3 warm-ups: p50, p99, and server CPU-ms per request; on
 * PostgreSQL also the database's CPU-ms per request, from its backends serving the database
 * (`backends`, read after the warm-ups have opened the server's connections).
 */
async function timed(
  server: BenchServer,
  cookie: string,
  path: string,
  backends: () => Promise<number[]>,
) {
  const once = async () => {
    const started = performance.now()
    const res = await request(`${server.api}${path}`, { dispatcher: agent, headers: { cookie } })
    const body = await res.body.text()
    if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode} ${body}`)
    return { ms: performance.now() - started, bytes: body.length }
  }
  for (let i = 0; i < 3; i++) await once()
  const stopDatabase = databaseCpu(await backends())
  const stop = startCpu([server.pid])
  const times: number[] = []
  let bytes = 0
  for (let i = 0; i < repeats; i++) {
    const r = await once()
    times.push(r.ms)
    bytes = r.bytes
  }
  const cpu = stop()
  const database = stopDatabase()
  times.sort((a, b) => a - b)
  return {
    path,
    p50: quantile(times, 0.5),
    p99: quantile(times, 0.99),
    serverCpuMs: cpu.serverCpuSeconds === null ? null : (cpu.serverCpuSeconds * 1000) / repeats,
    serverCorePercent: cpu.serverCorePercent,
    databaseCpuMs: database === null ? null : (database * 1000) / repeats,
    responseBytes: bytes,
  }
}

/**
 * CPU seconds the PostgreSQL backends `pids` use until the returned function is called (null
 * without any, as on SQLite). A backend that closes meanwhile (an idle connection the pool lets
 * go) is left out: it was not serving the requests.
 */
function databaseCpu(pids: number[]): () => number | null {
  const before = new Map(pids.map((pid) => [pid, cpuSeconds(pid)]))
  return () => {
    if (pids.length === 0) return null
    let total = 0
    for (const [pid, start] of before) {
      const end = cpuSeconds(pid)
      if (start !== null && end !== null) total += end - start
    }
    return total
  }
}

/** The report's query before migration 0023 (one statement, ROW_NUMBER median), for comparison. */
async function oldQuery(db: Db, tenantId: string) {
  const text = `select r.package_id, count(distinct r.learner_id), count(*),
      sum(case when r.completion_status = 'completed' then 1 else 0 end),
      avg(r.score_scaled), avg(r.time_spent_seconds),
      avg(case when r.rn in ((r.n + 1) / 2, (r.n + 2) / 2) then r.time_spent_seconds end)
    from (select package_id, learner_id, completion_status, score_scaled, time_spent_seconds,
      row_number() over (partition by package_id order by time_spent_seconds) as rn,
      count(*) over (partition by package_id) as n
      from sessions where tenant_id = '${tenantId}' and mode = 'test') r
    group by r.package_id`
  const times: number[] = []
  for (let i = 0; i < 3; i++) {
    const started = performance.now()
    await sql.raw(text).execute(db.kysely)
    times.push(performance.now() - started)
  }
  return Math.min(...times)
}

async function freshPostgres(base: string) {
  const name = `cp_report_${randomBase62(8).toLowerCase()}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: base })
      await c.connect()
      await c.query(`drop database if exists ${name} with (force)`)
      await c.end()
    },
  }
}

// Long on purpose: one run reads top to bottom (server, data, rollup, sign-in, each shape).
async function run(dialect: Dialect) {
  const base = process.env.BENCH_DATABASE_URL
  const database = dialect === 'postgres' && base ? await freshPostgres(base) : null
  const server = await startBenchServer(database?.url)
  const db = openDatabase(database?.url ?? `sqlite:${join(server.dataDir, 'courseport.db')}`)
  try {
    const packages: Array<{ id: string; version: string }> = []
    for (let i = 0; i < PACKAGES; i++) {
      const id = await uploadGolfPackage(server)
      const row = await db.kysely
        .selectFrom('packages')
        .select(['tenant_id', 'active_version_id'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
      packages.push({ id, version: row.active_version_id ?? '' })
    }
    const tenantId = (
      await db.kysely
        .selectFrom('packages')
        .select('tenant_id')
        .where('id', '=', packages[0]?.id ?? '')
        .executeTakeFirstOrThrow()
    ).tenant_id
    let started = performance.now()
    await build(db, tenantId, packages)
    const buildSeconds = (performance.now() - started) / 1000
    started = performance.now()
    await rebuildReportRollups(db.kysely)
    const backfillSeconds = (performance.now() - started) / 1000
    const rollupRows = Number(
      (
        await db.kysely
          .selectFrom('report_daily')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )
    if (dialect === 'postgres') await sql`analyze`.execute(db.kysely)
    const before = await oldQuery(db, tenantId)
    const cookie = await signIn(server, db, tenantId)
    const r = '/api/customer/reports/learner-progress'
    const p = packages[3]?.id
    const shapes = {
      baseline: '/api/customer/sessions?limit=50',
      allTime: r,
      sixMonths: `${r}?from=2026-01-01T00:00:00.000Z&to=2026-07-01T00:00:00.000Z`,
      monthMidDay: `${r}?from=2026-03-10T13:30:00.000Z&to=2026-04-10T08:00:00.000Z`,
      perDispatch: `${r}?group=dispatch`,
      onePackageQuarter: `${r}?package_id=${p}&from=2026-02-01T00:00:00.000Z&to=2026-05-01T00:00:00.000Z`,
      learnersPage: `${r}?group=learner&package_id=${p}&limit=100`,
      csv: `${r}?group=dispatch&format=csv`,
    }
    const backends = async () =>
      dialect === 'postgres'
        ? (
            await sql<{ pid: number }>`select pid from pg_stat_activity
              where datname = current_database() and pid <> pg_backend_pid()`.execute(db.kysely)
          ).rows.map((r) => Number(r.pid))
        : []
    const results: Record<string, Awaited<ReturnType<typeof timed>>> = {}
    for (const [name, path] of Object.entries(shapes)) {
      results[name] = await timed(server, cookie, path, backends)
      const m = results[name]
      console.log(
        `[${dialect}] ${name.padEnd(18)} p50 ${m.p50.toFixed(1).padStart(7)} ms  p99 ${m.p99.toFixed(1).padStart(7)} ms  server ${m.serverCpuMs?.toFixed(1) ?? 'n/a'} CPU-ms/request (${m.serverCorePercent?.toFixed(0) ?? 'n/a'} % of a core)${m.databaseCpuMs === null ? '' : `  database ${m.databaseCpuMs.toFixed(1)} CPU-ms/request`}  load ${loadavg()[0]?.toFixed(1)}`,
      )
    }
    console.log(
      `[${dialect}] ${total} sessions built in ${buildSeconds.toFixed(1)} s; rollup back-fill (0024) ${backfillSeconds.toFixed(1)} s (${rollupRows} rows); old single query ${before.toFixed(0)} ms (best of 3, from the bench process)`,
    )
    return {
      dialect,
      total,
      buildSeconds,
      backfillSeconds,
      rollupRows,
      oldQueryMs: before,
      results,
    }
  } finally {
    await db.close()
    server.stop()
    await new Promise((resolve) => setTimeout(resolve, 500))
    await database?.drop()
  }
}

console.log(
  `${total} sessions, ${repeats} requests per shape; load average ${loadavg()[0]?.toFixed(1)} (shared 2-core machine)`,
)
const dialects: Dialect[] = process.env.BENCH_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite']
try {
  for (const dialect of dialects) {
    const out = await run(dialect)
    mkdirSync(join(here, 'results'), { recursive: true })
    writeFileSync(
      join(here, 'results', dialect === 'sqlite' ? 'report.json' : 'report-postgres.json'),
      `${JSON.stringify({ date: new Date().toISOString(), loadAverageAtEnd: loadavg()[0], target: 'report p50 and p99 < 300 ms at 200 000 sessions', ...out }, null, 2)}\n`,
    )
  }
} finally {
  await agent.close()
}
