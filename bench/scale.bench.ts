/**
 * Costs that must not grow with the data (issue 15.1): one package of one tenant holding 10 000
 * sessions, then 1 000 000, with other tenants' and another package's sessions around them.
 * At each size: new-learner launches/s, the first and the last page of
 * `GET /api/v1/sessions?package_id=…` (the last reached by walking `next_cursor`, limit 200; the
 * final request timed, then the deepest full page repeated), and CSV export rows/s, each with
 * the server's own CPU time (/proc/<pid>/stat). Target: the figures at the two sizes within 1.5×
 * of each other.
 *   node bench/scale.bench.ts [sizes=10000,1000000] [launches=300]
 *   BENCH_DATABASE_URL=postgres://…/db   runs on PostgreSQL too (a fresh database beside it)
 *   BENCH_WALK_SECONDS=1200              gives up walking to the last page after this long
 *   BENCH_REPEATS=200                    sequential requests timed for each page figure
 *
 * Sessions are built by SQL (INSERT … SELECT over a recursive CTE on SQLite, generate_series on
 * PostgreSQL), written into the database of a running bench-server.ts; a size is reached by
 * adding to the previous one. Built sessions are finished attempts (two per learner), one
 * second apart and older than the launches the bench makes. Noise: a tenth as many in another
 * package of the tenant and a fifth as many in four other tenants (tenant_id only: they point at
 * the same package rows, which keeps the foreign keys without building more packages).
 * PostgreSQL gets `analyze sessions` after each build, as autovacuum would.
 * Results go to bench/results/scale.json (scale-postgres.json).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'kysely'
import pg from 'pg'
import { Agent, request } from 'undici'
import { type Db, openDatabase } from '../src/infra/db/database.ts'
import type { Dialect } from '../src/infra/db/schema.ts'
import { randomBase62 } from '../src/shared/ids.ts'
import { type BenchServer, startBenchServer, uploadGolfPackage } from './bench-server.client.ts'
import { insertSessions, type Target, target } from './bulk-sessions.ts'
import { type CpuUse, startCpu } from './server-cpu.ts'

const here = dirname(fileURLToPath(import.meta.url))
const sizes = (process.argv[2] ?? '10000,1000000').split(',').map(Number)
const launches = Number(process.argv[3] ?? 300)
const walkBudgetMs = Number(process.env.BENCH_WALK_SECONDS ?? 1200) * 1000
const PAGE = 200
/**
 * Sequential repeats of the first and last page: their server CPU is read from /proc in 10 ms
 * ticks, so 200 requests of a few ms resolve a tenth of a millisecond (20 could not tell 4 from
 * 6 ms).
 */
const REPEATS = Number(process.env.BENCH_REPEATS ?? 200)
/** Replaced after each build: sockets idle for that long may be closed by the server. */
let agent = new Agent({ connections: 16 })

async function get(server: BenchServer, path: string) {
  const res = await request(`${server.api}${path}`, {
    dispatcher: agent,
    headers: { authorization: `Bearer ${server.key}` },
  })
  const text = await res.body.text()
  if (res.statusCode >= 300) throw new Error(`GET ${path}: ${res.statusCode} ${text}`)
  return JSON.parse(text) as { sessions: unknown[]; next_cursor: string | null }
}

/** Grows the package from `from` to `to` sessions, with its noise; returns the seconds taken. */
async function grow(db: Db, t: Target, other: Target, from: number, to: number) {
  const started = performance.now()
  const step = 200_000
  for (let a = from; a < to; a += step) {
    const b = Math.min(to, a + step)
    await insertSessions(db, t, 'ses_scale_', `'${t.tenantId}'`, a, b)
    await insertSessions(
      db,
      other,
      'ses_other_',
      `'${t.tenantId}'`,
      Math.floor(a / 10),
      Math.floor(b / 10),
    )
    await insertSessions(
      db,
      t,
      'ses_noise_',
      `'ten_noise_' || (i % 4)`,
      Math.floor(a / 5),
      Math.floor(b / 5),
    )
  }
  if (db.dialect === 'postgres') await sql`analyze sessions`.execute(db.kysely)
  return (performance.now() - started) / 1000
}

interface Timed {
  ms: number
  serverCpuMs: number | null
}

const cpuMs = (cpu: CpuUse, n: number) =>
  cpu.serverCpuSeconds === null ? null : (cpu.serverCpuSeconds * 1000) / n

/** The median of `REPEATS` sequential runs of one request, with the server CPU per request. */
async function repeated(server: BenchServer, path: string): Promise<Timed> {
  const times: number[] = []
  const stop = startCpu([server.pid])
  for (let i = 0; i < REPEATS; i++) {
    const started = performance.now()
    await get(server, path)
    times.push(performance.now() - started)
  }
  const cpu = stop()
  times.sort((a, b) => a - b)
  return { ms: times[Math.floor(times.length / 2)] ?? Number.NaN, serverCpuMs: cpuMs(cpu, REPEATS) }
}

/** `count` first launches of new learners from 8 callers; untimed warm-up when `tag` says so. */
async function launchRate(server: BenchServer, packageId: string, tag: string, count: number) {
  let next = 0
  const stop = startCpu([server.pid])
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        const i = next++
        const res = await request(`${server.api}/api/v1/packages/${packageId}/launch`, {
          method: 'POST',
          dispatcher: agent,
          headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ user_id: `new-${tag}-${i}` }),
        })
        const text = await res.body.text()
        if (res.statusCode >= 300) throw new Error(`launch: ${res.statusCode} ${text}`)
      }
    }),
  )
  const cpu = stop()
  return { perSecond: count / cpu.wallSeconds, serverCpuMs: cpuMs(cpu, count), cpu }
}

/**
 * Walks `next_cursor` to the last page; `walkSeconds` null when it took longer than the budget.
 * The deepest *full* page is the one repeated: a partial last page (140 rows of 10 340, 80 of
 * 1 000 680) would compare row counts, not depth.
 */
async function lastPage(server: BenchServer, list: string) {
  const started = performance.now()
  let cursor: string | null = null
  let deepestFull = list
  let pages = 0
  let finalMs = 0
  for (;;) {
    const path: string = cursor ? `${list}&cursor=${encodeURIComponent(cursor)}` : list
    const t0 = performance.now()
    const page = await get(server, path)
    finalMs = performance.now() - t0
    pages++
    if (page.sessions.length === PAGE) deepestFull = path
    if (!page.next_cursor) {
      const walkSeconds = (performance.now() - started) / 1000
      const timed = await repeated(server, deepestFull)
      return { pages, walkSeconds, walkFinalMs: finalMs, repeated: timed }
    }
    if (performance.now() - started > walkBudgetMs) {
      return { pages, walkSeconds: null, walkFinalMs: finalMs }
    }
    cursor = page.next_cursor
  }
}

async function csvRate(server: BenchServer, packageId: string) {
  const stop = startCpu([server.pid])
  const res = await request(`${server.api}/api/v1/sessions?package_id=${packageId}&format=csv`, {
    dispatcher: agent,
    headers: { authorization: `Bearer ${server.key}` },
  })
  let lines = 0
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++
  }
  if (res.statusCode >= 300) throw new Error(`csv: ${res.statusCode}`)
  const cpu = stop()
  const rows = lines - 1
  return {
    rows,
    seconds: cpu.wallSeconds,
    rowsPerSecond: rows / cpu.wallSeconds,
    serverCpuUsPerRow: cpu.serverCpuSeconds === null ? null : (cpu.serverCpuSeconds * 1e6) / rows,
  }
}

async function measure(server: BenchServer, t: Target, size: number, buildSeconds: number) {
  const list = `/api/v1/sessions?package_id=${t.packageId}&limit=${PAGE}`
  // Warm-up (JIT, caches), so the first size is not charged for the start of the process.
  await launchRate(server, t.packageId, `warm-${size}`, 40)
  await get(server, list)
  const launch = await launchRate(server, t.packageId, String(size), launches)
  const first = await repeated(server, list)
  const last = await lastPage(server, list)
  const csv = await csvRate(server, t.packageId)
  return { size, buildSeconds, launch, firstPage: first, lastPage: last, csv }
}
type Measured = Awaited<ReturnType<typeof measure>>

async function freshPostgres(base: string) {
  const name = `cp_scale_${randomBase62(8).toLowerCase()}`
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

const f = (n: number | null | undefined, digits = 1) => (n == null ? 'n/a' : n.toFixed(digits))

function print(dialect: Dialect, m: Measured) {
  const l = m.lastPage
  console.log(
    `[${dialect}] ${String(m.size).padStart(9)} sessions (built in ${f(m.buildSeconds)} s): ` +
      `launches ${f(m.launch.perSecond, 0)}/s (server ${f(m.launch.serverCpuMs, 2)} CPU-ms each, ${f(m.launch.cpu.serverCorePercent, 0)} % of a core, saturated: ${m.launch.cpu.saturated}); ` +
      `first page ${f(m.firstPage.ms)} ms (${f(m.firstPage.serverCpuMs)} CPU-ms); ` +
      (l.walkSeconds === null
        ? `last page not reached in ${walkBudgetMs / 1000} s (page ${l.pages} took ${f(l.walkFinalMs)} ms); `
        : `last page ${f(l.repeated?.ms)} ms (${f(l.repeated?.serverCpuMs)} CPU-ms; ${f(l.walkFinalMs)} ms at the end of a ${l.pages}-page walk of ${f(l.walkSeconds)} s); `) +
      `CSV ${f(m.csv.rowsPerSecond, 0)} rows/s (${m.csv.rows} rows, ${f(m.csv.serverCpuUsPerRow)} CPU-µs/row)`,
  )
}

/** How many times worse the large size is than the small (1 = flat); target ≤ 1.5. */
function compare(small: Measured, large: Measured) {
  const worse = (a: number | null | undefined, b: number | null | undefined) =>
    a && b ? b / a : null
  return {
    launchesPerSecond: worse(large.launch.perSecond, small.launch.perSecond),
    launchCpu: worse(small.launch.serverCpuMs, large.launch.serverCpuMs),
    firstPageMs: worse(small.firstPage.ms, large.firstPage.ms),
    firstPageCpu: worse(small.firstPage.serverCpuMs, large.firstPage.serverCpuMs),
    lastPageMs: worse(small.lastPage.repeated?.ms, large.lastPage.repeated?.ms),
    lastPageCpu: worse(small.lastPage.repeated?.serverCpuMs, large.lastPage.repeated?.serverCpuMs),
    csvRowsPerSecond: worse(large.csv.rowsPerSecond, small.csv.rowsPerSecond),
    csvCpuPerRow: worse(small.csv.serverCpuUsPerRow, large.csv.serverCpuUsPerRow),
  }
}

async function run(dialect: Dialect) {
  const base = process.env.BENCH_DATABASE_URL
  const database = dialect === 'postgres' && base ? await freshPostgres(base) : null
  const server = await startBenchServer(database?.url)
  const db = openDatabase(database?.url ?? `sqlite:${join(server.dataDir, 'courseport.db')}`)
  try {
    const t = await target(db, await uploadGolfPackage(server))
    const other = await target(db, await uploadGolfPackage(server))
    const results: Measured[] = []
    let built = 0
    for (const size of sizes) {
      const buildSeconds = await grow(db, t, other, built, size)
      built = size
      await agent.close()
      agent = new Agent({ connections: 16 })
      const m = await measure(server, t, size, buildSeconds)
      print(dialect, m)
      results.push(m)
    }
    const small = results[0]
    const large = results.at(-1)
    const ratios = small && large && small !== large ? compare(small, large) : null
    if (ratios) {
      const r = (n: number | null) => (n === null ? 'n/a' : `${n.toFixed(2)}×`)
      console.log(
        `[${dialect}] ${large?.size} vs ${small?.size} (target ≤ 1.5×; CPU = server CPU per unit): ` +
          `launches ${r(ratios.launchesPerSecond)} (CPU ${r(ratios.launchCpu)}), ` +
          `first page ${r(ratios.firstPageMs)} (CPU ${r(ratios.firstPageCpu)}), ` +
          `last page ${r(ratios.lastPageMs)} (CPU ${r(ratios.lastPageCpu)}), ` +
          `CSV rows/s ${r(ratios.csvRowsPerSecond)} (CPU ${r(ratios.csvCpuPerRow)})`,
      )
    }
    return { dialect, results, ratios }
  } finally {
    await db.close()
    server.stop()
    await new Promise((resolve) => setTimeout(resolve, 500))
    await database?.drop()
  }
}

console.log(
  `sizes ${sizes.join(', ')}, ${launches} new-learner launches per size, pages of ${PAGE}; load average ${loadavg()[0]?.toFixed(1)} (shared 2-core machine)`,
)
const dialects: Dialect[] = process.env.BENCH_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite']
try {
  for (const dialect of dialects) {
    const out = await run(dialect)
    mkdirSync(join(here, 'results'), { recursive: true })
    writeFileSync(
      join(here, 'results', dialect === 'sqlite' ? 'scale.json' : 'scale-postgres.json'),
      `${JSON.stringify(
        {
          date: new Date().toISOString(),
          loadAverageAtEnd: loadavg()[0],
          target: 'every ratio (large size vs small, 1 = flat) <= 1.5',
          ...out,
        },
        null,
        2,
      )}\n`,
    )
  }
} finally {
  await agent.close()
}
