/**
 * Runtime commits per second and latency at 200 concurrent learners, against the same server
 * process's bare GET /healthz rate measured the same way in the same run.
 * Target (issue 3): commit rate ≥ 40 % of the /healthz rate on SQLite.
 *   node bench/runtime.bench.ts [seconds=6] [learners=200] [rounds=5]
 *
 * BENCH_DATABASE_URL=postgres://… runs the server on PostgreSQL instead (no target there).
 * The two loads alternate for `rounds` rounds (a shared machine drifts over a minute), each
 * round gives a ratio, and the median round is reported.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { Agent, request } from 'undici'

const here = dirname(fileURLToPath(import.meta.url))
const seconds = Number(process.argv[2] ?? 6)
const learners = Number(process.argv[3] ?? 200)
const rounds = Number(process.argv[4] ?? 5)

const server = spawn(process.execPath, [join(here, 'bench-server.ts')], {
  stdio: ['ignore', 'pipe', 'inherit'],
})
const line = await new Promise<string>((resolve) =>
  createInterface({ input: server.stdout }).once('line', resolve),
)
const { api, content, key } = JSON.parse(line) as { api: string; content: string; key: string }
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
    players.push({ sessionId, auth, deliveryId: delivery.delivery_id as string, seq: 0 })
  }
  return players
}

interface Result {
  requests: number
  perSecond: number
  p50: number
  p99: number
  errors: number
}

async function drive(
  concurrency: number,
  once: (worker: number) => Promise<void>,
): Promise<Result> {
  const latencies: number[] = []
  let errors = 0
  const deadline = performance.now() + seconds * 1000
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (performance.now() < deadline) {
        const started = performance.now()
        try {
          await once(worker)
          latencies.push(performance.now() - started)
        } catch {
          errors++
        }
      }
    }),
  )
  latencies.sort((a, b) => a - b)
  const pick = (q: number) =>
    Math.round((latencies[Math.floor(q * (latencies.length - 1))] ?? 0) * 10) / 10
  return {
    requests: latencies.length,
    perSecond: Math.round(latencies.length / seconds),
    p50: pick(0.5),
    p99: pick(0.99),
    errors,
  }
}

function commitLoad(players: Awaited<ReturnType<typeof setup>>) {
  return async (worker: number) => {
    const p = players[worker]
    if (!p) return
    p.seq++
    const delta = {
      seq: p.seq,
      fromSeq: p.seq - 1,
      final: false,
      values: {
        'cmi.core.lesson_location': `page-${p.seq}`,
        'cmi.suspend_data': `s${p.seq}`.repeat(20),
      },
    }
    await call(
      `${content}/runtime/sessions/${p.sessionId}/commits`,
      'POST',
      { delivery_id: p.deliveryId, delta },
      p.auth,
    )
  }
}

const line2 = (name: string, r: Result) =>
  `${name.padEnd(13)} ${String(r.perSecond).padStart(6)}/s  p50 ${r.p50} ms  p99 ${r.p99} ms  errors ${r.errors}`

try {
  const players = await setup()
  const results: Array<{ health: Result; commits: Result; ratio: number }> = []
  console.log(
    `learners: ${learners}, ${rounds} rounds of ${seconds} s per load, ${process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'SQLite'}, one server process`,
  )
  for (let round = 1; round <= rounds; round++) {
    const health = await drive(learners, async () => {
      await call(`${api}/healthz`, 'GET')
    })
    const commits = await drive(learners, commitLoad(players))
    const ratio = commits.perSecond / health.perSecond
    results.push({ health, commits, ratio })
    console.log(`round ${round}: ${line2('GET /healthz', health)}`)
    console.log(`round ${round}: ${line2('commits', commits)}  → ${(ratio * 100).toFixed(1)} %`)
  }
  const median = [...results].sort((a, b) => a.ratio - b.ratio)[Math.floor(results.length / 2)]
  if (!median) throw new Error('no rounds')
  console.log(`median round: ${line2('GET /healthz', median.health)}`)
  console.log(`median round: ${line2('commits', median.commits)}`)
  console.log(`ratio: ${(median.ratio * 100).toFixed(1)} % of /healthz (target ≥ 40 %)`)
  mkdirSync(join(here, 'results'), { recursive: true })
  writeFileSync(
    join(here, 'results', 'runtime.json'),
    `${JSON.stringify({ learners, seconds, rounds, results, median }, null, 2)}\n`,
  )
} finally {
  server.kill('SIGTERM')
  await agent.close()
}
