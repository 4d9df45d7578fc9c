/**
 * Runtime commits against the same server process's bare GET /healthz, both driven by
 * autocannon with the same connections, in the same run.
 * Target (issues 3 and 15.4): per second of the server's own CPU time, commits ≥ 40 % of
 * /healthz. Throughput (requests per wall second) is reported too, with the CPU each side used
 * and which one was saturated: on a 2-core machine the load generator competes with the server,
 * so the wall-clock ratio mostly measures the client.
 *   node bench/runtime.bench.ts [seconds=6] [learners=200] [rounds=5]
 *
 * `learners` is the number of connections (one request in flight each); every commit goes to a
 * learner with no commit in flight, so each learner's commits arrive in order.
 * Each load first runs BENCH_WARMUP_SECONDS (default 3) unmeasured, so every round measures a
 * warm server. BENCH_INTERACTIONS=n: each learner first records a quiz of n interactions (8 elements each)
 * in one commit, so the measured commits run against a record of that size (default 0): a
 * commit must cost what it changes, not what the attempt holds.
 * BENCH_SESSIONS=n: before the learners launch, n finished sessions, each with its SCO's row and
 * 9-element record, are written by SQL into the package they commit in (bulk-sessions.ts;
 * PostgreSQL then analyzes them, as autovacuum would), so each commit's statements run against
 * tables and indexes of a real tenant's size, not 200 rows (default 100 000; 0: none).
 * BENCH_DATABASE_URL=postgres://… runs the server on PostgreSQL, in a fresh database made beside
 * the one named (dropped afterwards). The server CPU is then the Node process's; PostgreSQL's
 * backends serving that database (found in pg_stat_activity, their CPU read from /proc, so the
 * database must run on this machine) are measured too, and the commits' ratio is given both per
 * Node CPU and per Node + backend CPU. PostgreSQL's shared background processes (WAL writer,
 * checkpointer) serve every database of the cluster and are left out. The two loads alternate
 * for `rounds` rounds (a shared machine drifts over a minute); the median round by
 * CPU-normalised ratio (Node CPU) is reported.
 * Results go to bench/results/runtime.json (runtime-postgres.json on PostgreSQL).
 */
import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { sql } from 'kysely'
import pg from 'pg'
import { Agent, request } from 'undici'
import { openDatabase } from '../src/infra/db/database.ts'
import { insertScoRecords, insertSessions, target } from './bulk-sessions.ts'
import {
  autocannon,
  type CannonResult,
  type CpuUse,
  perServerCpuSecond,
  startCpu,
  startGroupCpu,
} from './server-cpu.ts'

const here = dirname(fileURLToPath(import.meta.url))
const seconds = Number(process.argv[2] ?? 6)
const learners = Number(process.argv[3] ?? 200)
const rounds = Number(process.argv[4] ?? 5)
/** BENCH_WARMUP_SECONDS: each load runs this long, unmeasured, before the rounds (default 3). */
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 3)
/** BENCH_INTERACTIONS=n: each learner's record holds n interactions (8 elements each) first. */
const interactions = Number(process.env.BENCH_INTERACTIONS ?? 0)
/** BENCH_SESSIONS=n: finished sessions in the learners' package before they launch. */
const builtSessions = Number(process.env.BENCH_SESSIONS ?? 100_000)

// BENCH_CPU_PROF=<dir>: the server writes a V8 CPU profile there when it stops (for finding
// where a request's CPU goes; profiling slows it, so figures from such a run are not quoted).
const profile = process.env.BENCH_CPU_PROF
const profileArgs = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []

/** A fresh PostgreSQL database beside BENCH_DATABASE_URL's, and a client to find its backends. */
async function freshPostgres(base: string) {
  const name = `cp_runtime_${Math.random().toString(36).slice(2, 10)}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(base)
  url.pathname = `/${name}`
  const watcher = new pg.Client({ connectionString: url.toString() })
  await watcher.connect()
  return {
    url: url.toString(),
    /** The backends serving the server's connections (this watcher's own left out). */
    async backends(): Promise<number[]> {
      const { rows } = await watcher.query<{ pid: number }>(
        `select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`,
        [name],
      )
      return rows.map((r) => r.pid)
    },
    async drop() {
      await watcher.end()
      const c = new pg.Client({ connectionString: base })
      await c.connect()
      await c.query(`drop database if exists ${name} with (force)`)
      await c.end()
    },
  }
}

const postgres = process.env.BENCH_DATABASE_URL
  ? await freshPostgres(process.env.BENCH_DATABASE_URL)
  : null
const server = spawn(process.execPath, [...profileArgs, join(here, 'bench-server.ts')], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, ...(postgres && { BENCH_DATABASE_URL: postgres.url }) },
})
const line = await new Promise<string>((resolve) =>
  createInterface({ input: server.stdout }).once('line', resolve),
)
const { api, content, key, dataDir } = JSON.parse(line) as {
  api: string
  content: string
  key: string
  dataDir: string
}
const agent = new Agent({ connections: learners, pipelining: 1 })

async function call(
  url: string,
  method: 'GET' | 'POST',
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await request(url, {
    method,
    dispatcher: agent,
    headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.body.text()
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${text}`)
  return text ? (JSON.parse(text) as Record<string, unknown>) : {}
}

/** SCORM 1.2 interactions a learner recorded before the measured commits (a quiz taken). */
function interactionValues(count: number): Record<string, string> {
  const values: Record<string, string> = {}
  for (let n = 0; n < count; n++) {
    const at = `cmi.interactions.${n}`
    values[`${at}.id`] = `question-${n}`
    values[`${at}.type`] = 'choice'
    values[`${at}.student_response`] = 'a'
    values[`${at}.correct_responses.0.pattern`] = 'a'
    values[`${at}.result`] = 'correct'
    values[`${at}.weighting`] = '1'
    values[`${at}.time`] = '10:15:00'
    values[`${at}.latency`] = '0000:00:12.00'
  }
  return values
}

/**
 * `builtSessions` finished attempts in the package, each with its SCO's row and record, written
 * into the server's database.
 */
async function buildSessions(packageId: string) {
  if (builtSessions <= 0) return
  const db = openDatabase(postgres?.url ?? `sqlite:${join(dataDir, 'courseport.db')}`)
  try {
    const started = performance.now()
    const t = await target(db, packageId)
    await insertSessions(db, t, 'ses_built_', `'${t.tenantId}'`, 0, builtSessions)
    const version = await db.kysely
      .selectFrom('package_versions')
      .select('manifest')
      .where('id', '=', t.versionId)
      .executeTakeFirstOrThrow()
    const [item] = (JSON.parse(version.manifest) as { launches: Array<{ id: string }> }).launches
    if (!item) throw new Error('the package has no launchable item')
    await insertScoRecords(db, 'ses_built_', item.id)
    if (db.dialect === 'postgres') await sql`analyze`.execute(db.kysely)
    console.log(
      `${builtSessions} finished sessions (with their SCO rows and records) built in the package in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    )
  } finally {
    await db.close()
  }
}

async function setup() {
  const zip = readFileSync(join(here, '../../shared/fixtures/scorm/golf/singlescobasic.zip'))
  const form = new FormData()
  form.append('file', new Blob([zip]), 'course.zip')
  const uploaded = (await (
    await fetch(`${api}/api/v1/packages/upload`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${key}` },
    })
  ).json()) as { package: { id: string } }
  await buildSessions(uploaded.package.id)
  const players = []
  for (let i = 0; i < learners; i++) {
    const launched = await call(
      `${api}/api/v1/packages/${uploaded.package.id}/launch`,
      'POST',
      { user_id: `learner-${i}` },
      { authorization: `Bearer ${key}` },
    )
    const url = new URL(launched.launch_url as string)
    const sessionId = url.pathname.split('/').pop() as string
    const started = await call(`${content}/runtime/sessions/${sessionId}/start`, 'POST', {
      token: url.searchParams.get('token'),
    })
    const auth = { authorization: `Bearer ${started.runtime_token as string}` }
    const delivery = await call(
      `${content}/runtime/sessions/${sessionId}/deliveries`,
      'POST',
      { item_id: started.current_item_id },
      auth,
    )
    const deliveryId = delivery.delivery_id as string
    const seq = interactions > 0 ? 1 : 0
    if (seq === 1) {
      const delta = { seq, fromSeq: 0, final: false, values: interactionValues(interactions) }
      await call(
        `${content}/runtime/sessions/${sessionId}/commits`,
        'POST',
        { delivery_id: deliveryId, delta },
        auth,
      )
    }
    players.push({ sessionId, auth, deliveryId, seq, acked: seq })
  }
  return players
}

interface Phase {
  requests: number
  perSecond: number
  perServerCpuSecond: number | null
  /** PostgreSQL only: CPU seconds of the backends serving the server, and requests per
   * second of Node + backend CPU. */
  databaseCpuSeconds?: number
  perServerAndDatabaseCpuSecond?: number | null
  p50: number
  p99: number
  errors: number
  non2xx: number
  cpu: CpuUse
}

type Player = Awaited<ReturnType<typeof setup>>[number]

async function drive(
  url: string,
  requests: Parameters<typeof autocannon>[0]['requests'],
  duration = seconds,
) {
  const stopDatabase = postgres ? await startGroupCpu(() => postgres.backends()) : null
  const stop = startCpu([server.pid])
  const r: CannonResult = await autocannon({ url, connections: learners, duration, requests })
  const cpu = stop()
  const database = await stopDatabase?.()
  const phase: Phase = {
    requests: r.requests.total,
    perSecond: Math.round(r.requests.total / cpu.wallSeconds),
    perServerCpuSecond: perServerCpuSecond(r.requests.total, cpu),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    cpu,
  }
  if (database) {
    phase.databaseCpuSeconds = database.cpuSeconds
    const both = (cpu.serverCpuSeconds ?? 0) + database.cpuSeconds
    phase.perServerAndDatabaseCpuSecond = both > 0 ? r.requests.total / both : null
    if (database.lost > 0) console.log(`(${database.lost} backend(s) went away during the phase)`)
  }
  return phase
}

/**
 * One commit request whose body is built per request: it takes a learner with no commit in
 * flight (autocannon gives the same context object to the request's response) and gives it back
 * on the answer. Each delta holds every change since the learner's last acknowledged commit, as
 * the player sends it, so a commit cut off by the end of a run does not break the next one.
 */
function commitRequests(players: Player[]) {
  const idle = [...players]
  return [
    {
      path: '/',
      method: 'POST' as const,
      setupRequest(req: { path: string }, context: Record<string, unknown>) {
        const p = idle.pop()
        if (!p) throw new Error('no idle learner: more requests in flight than learners')
        context.player = p
        p.seq++
        context.seq = p.seq
        const delta = {
          seq: p.seq,
          fromSeq: p.acked,
          final: false,
          values: {
            'cmi.core.lesson_location': `page-${p.seq}`,
            'cmi.suspend_data': `s${p.seq}`.repeat(20),
          },
        }
        return {
          ...req,
          path: `/runtime/sessions/${p.sessionId}/commits`,
          method: 'POST' as const,
          headers: { 'content-type': 'application/json', ...p.auth },
          body: JSON.stringify({ delivery_id: p.deliveryId, delta }),
        }
      },
      onResponse(status: number, _body: string, context: Record<string, unknown>) {
        const p = context.player as Player
        if (status < 300) p.acked = context.seq as number
        idle.push(p)
      },
    },
  ]
}

const pct = (n: number | null) => (n === null ? '   n/a' : `${n.toFixed(0).padStart(4)} %`)
const databasePart = (r: Phase) =>
  r.databaseCpuSeconds === undefined
    ? ''
    : `  postgres ${pct((r.databaseCpuSeconds / r.cpu.wallSeconds) * 100)}  ${Math.round(r.perServerAndDatabaseCpuSecond ?? 0)}/(server+postgres)-CPU-s`
const row = (name: string, r: Phase) =>
  `${name.padEnd(13)} ${String(r.perSecond).padStart(6)}/s ${String(Math.round(r.perServerCpuSecond ?? 0)).padStart(7)}/server-CPU-s  server ${pct(r.cpu.serverCorePercent)}  client ${pct(r.cpu.clientCorePercent)}  ${r.cpu.saturated.padEnd(7)}  p50 ${r.p50} ms  p99 ${r.p99} ms${databasePart(r)}${r.errors + r.non2xx ? `  errors ${r.errors} non-2xx ${r.non2xx}` : ''}`

/** Commits per Node + PostgreSQL CPU against /healthz per Node CPU (it touches no database). */
function ratioWithDatabase(health: Phase, commits: Phase): number | null {
  return commits.perServerAndDatabaseCpuSecond && health.perServerCpuSecond
    ? commits.perServerAndDatabaseCpuSecond / health.perServerCpuSecond
    : null
}

try {
  const players = await setup()
  const results: Array<{
    health: Phase
    commits: Phase
    ratio: number
    cpuRatio: number | null
    cpuRatioWithDatabase?: number | null
  }> = []
  console.log(
    `${learners} connections, ${rounds} rounds of ${seconds} s per load, ${process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'SQLite'}, one server process; load average ${loadavg()[0]?.toFixed(1)} (shared 2-core machine)`,
  )
  // Untimed: both loads once, so that round 1 measures a warm server as the others do (the
  // commit path's code is compiled during its first seconds; /healthz's during start-up).
  await drive(api, [{ path: '/healthz' }], warmupSeconds)
  await drive(content, commitRequests(players), warmupSeconds)
  console.log(`${''.padEnd(22)} throughput  per server CPU   server  client  saturated`)
  for (let round = 1; round <= rounds; round++) {
    const health = await drive(api, [{ path: '/healthz' }])
    const commits = await drive(content, commitRequests(players))
    const ratio = commits.perSecond / health.perSecond
    const cpuRatio =
      commits.perServerCpuSecond !== null && health.perServerCpuSecond
        ? commits.perServerCpuSecond / health.perServerCpuSecond
        : null
    const withDatabase = postgres ? ratioWithDatabase(health, commits) : undefined
    results.push({
      health,
      commits,
      ratio,
      cpuRatio,
      ...(withDatabase !== undefined && { cpuRatioWithDatabase: withDatabase }),
    })
    console.log(`round ${round}: ${row('GET /healthz', health)}`)
    console.log(`round ${round}: ${row('commits', commits)}`)
    console.log(
      `round ${round}: commits = ${(ratio * 100).toFixed(1)} % of /healthz by throughput, ${cpuRatio === null ? 'n/a' : (cpuRatio * 100).toFixed(1)} % per server CPU${withDatabase === undefined ? '' : `, ${withDatabase === null ? 'n/a' : (withDatabase * 100).toFixed(1)} % per server + PostgreSQL backend CPU`}`,
    )
  }
  const key = (r: (typeof results)[number]) => r.cpuRatio ?? r.ratio
  const median = [...results].sort((a, b) => key(a) - key(b))[Math.floor(results.length / 2)]
  if (!median) throw new Error('no rounds')
  console.log(`median round: ${row('GET /healthz', median.health)}`)
  console.log(`median round: ${row('commits', median.commits)}`)
  console.log(
    `commits per server-CPU-second: ${median.cpuRatio === null ? 'n/a' : (median.cpuRatio * 100).toFixed(1)} % of /healthz (target ≥ 40 %); by throughput ${(median.ratio * 100).toFixed(1)} % (client-bound when the client was saturated)`,
  )
  if (median.cpuRatioWithDatabase !== undefined) {
    console.log(
      `with PostgreSQL's backends counted: ${median.cpuRatioWithDatabase === null ? 'n/a' : (median.cpuRatioWithDatabase * 100).toFixed(1)} % of /healthz`,
    )
  }
  mkdirSync(join(here, 'results'), { recursive: true })
  writeFileSync(
    join(
      here,
      'results',
      process.env.BENCH_DATABASE_URL ? 'runtime-postgres.json' : 'runtime.json',
    ),
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        database: process.env.BENCH_DATABASE_URL ? 'postgres' : 'sqlite',
        connections: learners,
        seconds,
        rounds,
        loadAverageAtEnd: loadavg()[0],
        target:
          'median.cpuRatio >= 0.40 (commits per server-CPU-second / healthz per server-CPU-second)',
        results,
        median,
      },
      null,
      2,
    )}\n`,
  )
} finally {
  const exited = new Promise((resolve) => server.once('exit', resolve))
  server.kill('SIGTERM')
  await agent.close()
  await exited
  await postgres?.drop()
}
