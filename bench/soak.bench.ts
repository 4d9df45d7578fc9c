/**
 * Soak: hostile and normal traffic mixed, for minutes, against one spawned server (bench-server.ts)
 * on loopback. Passes when the process is alive at the end, its RSS stayed under the bound, and
 * every normal request was answered correctly; prints those figures and the server's CPU time.
 *   npm run bench:soak                      (10 minutes)
 *   SOAK_SECONDS=60 node bench/soak.bench.ts
 *
 * SOAK_SECONDS (default 600), SOAK_WORKERS (concurrent clients, default 8), SOAK_MAX_REQUESTS
 * (stop early after this many, default 1 000 000), SOAK_RSS_MB (the bound on the server's peak
 * RSS, default 512). BENCH_DATABASE_URL=postgres://… runs the server on PostgreSQL.
 * Hostile vectors: presigned PUTs with chunked bodies shorter, empty and longer than declared,
 * a client hanging up mid-upload, malformed multipart, a 70 KB path, a tab in the path, bad JSON,
 * a 2 MiB JSON body, 100 KB fields, NULs, wrong types. Normal: multipart upload, presigned
 * upload (three steps), launch, player start + delivery + commits, list packages and sessions.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { Agent, FormData, request } from 'undici'

const here = dirname(fileURLToPath(import.meta.url))
const seconds = Number(process.env.SOAK_SECONDS ?? 600)
const workers = Number(process.env.SOAK_WORKERS ?? 8)
const maxRequests = Number(process.env.SOAK_MAX_REQUESTS ?? 1_000_000)
const rssBoundMb = Number(process.env.SOAK_RSS_MB ?? 512)

const server = spawn(process.execPath, [join(here, 'bench-server.ts')], {
  stdio: ['ignore', 'pipe', 'inherit'],
})
let exited: string | null = null
server.once('exit', (code, signal) => {
  exited = `exit code ${code} signal ${signal}`
})
const line = await new Promise<string>((resolve) =>
  createInterface({ input: server.stdout }).once('line', resolve),
)
const { api, content, key } = JSON.parse(line) as { api: string; content: string; key: string }
const apiPort = Number(new URL(api).port)
const auth = { authorization: `Bearer ${key}` }
// Normal and hostile traffic keep to their own connections, as real clients would: a connection
// the server closes after refusing a hostile request must not be reused for a normal one.
const agent = new Agent({ connections: workers * 2 })
const hostileAgent = new Agent({ connections: workers * 2 })
const zip = readFileSync(join(here, '../../shared/fixtures/scorm/golf/singlescobasic.zip'))

// --- measurement -----------------------------------------------------------------------------

const pageSize = 4096
const ticksPerSecond = 100
function procStat(pid: number): { rssMb: number; cpuSeconds: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const utime = Number(fields[11])
  const stime = Number(fields[12])
  const rssPages = Number(fields[21])
  return { rssMb: (rssPages * pageSize) / 2 ** 20, cpuSeconds: (utime + stime) / ticksPerSecond }
}
const rss: number[] = []
const sampler = setInterval(() => {
  if (!exited && server.pid) rss.push(procStat(server.pid).rssMb)
}, 1000)

const counts = { normal: 0, normalFailed: 0, hostile: 0, hostileFailed: 0 }
const failures: string[] = []
function fail(kind: 'normal' | 'hostile', what: string): void {
  counts[kind === 'normal' ? 'normalFailed' : 'hostileFailed']++
  if (failures.length < 20) failures.push(`${kind}: ${what}`)
}

// --- clients ---------------------------------------------------------------------------------

function caller(dispatcher: Agent) {
  return async (
    url: string,
    method: 'GET' | 'POST' | 'PUT',
    body?: NonNullable<Parameters<typeof request>[1]>['body'],
    headers: Record<string, string> = {},
  ): Promise<{ status: number; text: string }> => {
    try {
      const res = await request(url, { method, dispatcher, headers, body })
      return { status: res.statusCode, text: await res.body.text() }
    } catch (err) {
      const { code } = err as NodeJS.ErrnoException
      throw new Error(
        `${method} ${new URL(url).pathname.slice(0, 60)}: ${code ?? ''} ${(err as Error).message}`,
      )
    }
  }
}
const call = caller(agent)
const hostileCall = caller(hostileAgent)
const json = (body: unknown) => ({
  body: JSON.stringify(body),
  headers: { ...auth, 'content-type': 'application/json' },
})

/** Raw bytes on a fresh socket; the answer's status (0 when the server only closed). */
function raw(bytes: string, hangUp = false): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: apiPort })
    let text = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => {
      text += chunk
    })
    socket.on('error', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)))
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)))
    socket.write(bytes, () => {
      if (hangUp) socket.destroy()
    })
  })
}

async function expectStatus(
  kind: 'normal' | 'hostile',
  what: string,
  status: number,
  ok: (status: number) => boolean,
): Promise<void> {
  counts[kind]++
  if (!ok(status)) fail(kind, `${what} → ${status}`)
}
const is4xx = (s: number) => s >= 400 && s < 500

let packageId = ''

async function uploadMultipart(): Promise<void> {
  const form = new FormData()
  form.append('uploaded_by', 'soak')
  form.append('file', new Blob([zip]), 'course.zip')
  const res = await call(`${api}/api/v1/packages/upload`, 'POST', form, auth)
  await expectStatus('normal', 'multipart upload', res.status, (s) => s === 201)
  if (res.status === 201)
    packageId = (JSON.parse(res.text) as { package: { id: string } }).package.id
}

async function presignedUrl(): Promise<string> {
  const { body, headers } = json({ filename: 'course.zip', file_size: zip.length })
  const res = await call(`${api}/api/v1/packages/upload-url`, 'POST', body, headers)
  await expectStatus('normal', 'upload-url', res.status, (s) => s === 200)
  return (JSON.parse(res.text) as { presigned_url: string }).presigned_url
}

async function uploadPresigned(): Promise<void> {
  const url = await presignedUrl()
  const put = await call(url.replace(/^https?:\/\/[^/]+/, api), 'PUT', zip, {
    'content-type': 'application/zip',
  })
  await expectStatus('normal', 'presigned PUT', put.status, (s) => s === 200)
  const storagePath = (JSON.parse(put.text) as { storage_path: string }).storage_path
  const { body, headers } = json({ storage_path: storagePath })
  const processed = await call(`${api}/api/v1/packages/process`, 'POST', body, headers)
  await expectStatus('normal', 'process', processed.status, (s) => s === 201)
}

async function launchAndCommit(learner: number): Promise<void> {
  if (!packageId) return uploadMultipart()
  const { body, headers } = json({ user_id: `soak-${learner}` })
  const launched = await call(`${api}/api/v1/packages/${packageId}/launch`, 'POST', body, headers)
  await expectStatus('normal', 'launch', launched.status, (s) => s === 200)
  if (launched.status !== 200) return
  const url = new URL((JSON.parse(launched.text) as { launch_url: string }).launch_url)
  const sessionId = url.pathname.split('/').pop() as string
  const post = async (path: string, payload: unknown, extra: Record<string, string> = {}) => {
    const res = await call(
      `${content}/runtime/sessions/${sessionId}/${path}`,
      'POST',
      JSON.stringify(payload),
      { 'content-type': 'application/json', ...extra },
    )
    await expectStatus('normal', path, res.status, (s) => s === 200)
    return JSON.parse(res.text) as Record<string, unknown>
  }
  const started = await post('start', { token: url.searchParams.get('token') })
  const bearer = { authorization: `Bearer ${String(started.runtime_token)}` }
  const delivery = await post('deliveries', { item_id: started.current_item_id }, bearer)
  for (let seq = 1; seq <= 3; seq++) {
    await post(
      'commits',
      {
        delivery_id: delivery.delivery_id,
        delta: {
          seq,
          fromSeq: seq - 1,
          final: seq === 3,
          values: { 'cmi.core.lesson_location': `p${seq}` },
        },
      },
      bearer,
    )
  }
}

async function list(): Promise<void> {
  for (const path of ['/api/v1/packages?limit=5', '/api/v1/sessions?limit=5']) {
    const res = await call(`${api}${path}`, 'GET', undefined, auth)
    await expectStatus('normal', path, res.status, (s) => s === 200)
  }
}

function chunked(path: string, size: number): string {
  const chunk = size ? `${size.toString(16)}\r\n${'x'.repeat(size)}\r\n` : ''
  return `PUT ${path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunk}0\r\n\r\n`
}

const HOSTILE: Array<() => Promise<void>> = [
  async () => {
    const path = new URL(await presignedUrl()).pathname
    for (const size of [0, 100, zip.length + 500]) {
      await expectStatus('hostile', `chunked PUT ${size}`, await raw(chunked(path, size)), is4xx)
    }
  },
  async () => {
    const path = new URL(await presignedUrl()).pathname
    counts.hostile++
    await raw(
      `PUT ${path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1000\r\nxx`,
      true,
    )
  },
  async () => {
    for (const type of ['multipart/form-data', 'multipart/form-data; boundary=zz']) {
      const res = await hostileCall(`${api}/api/v1/packages/upload`, 'POST', '--zz\r\ngarbage', {
        ...auth,
        'content-type': type,
      })
      await expectStatus('hostile', `multipart ${type}`, res.status, is4xx)
    }
  },
  async () => {
    const long = `GET /api/v1/packages/${'a'.repeat(70_000)} HTTP/1.1\r\nHost: x\r\n\r\n`
    await expectStatus('hostile', '70 KB path', await raw(long), (s) => s === 431)
    await expectStatus(
      'hostile',
      'tab in path',
      await raw('GET /a\tb HTTP/1.1\r\nHost: x\r\n\r\n'),
      is4xx,
    )
  },
  async () => {
    const bad = await hostileCall(`${api}/api/v1/quick-publish`, 'POST', '{"title":', {
      ...auth,
      'content-type': 'application/json',
    })
    await expectStatus('hostile', 'bad JSON', bad.status, is4xx)
    const big = json({ title: 'x'.repeat(2 * 2 ** 20), slides: [] })
    const huge = await hostileCall(`${api}/api/v1/quick-publish`, 'POST', big.body, big.headers)
    await expectStatus('hostile', '2 MiB JSON', huge.status, (s) => s === 413)
  },
  async () => {
    for (const payload of [
      { title: 'x'.repeat(100_000), slides: [{ title: 'a', content: 'b' }] },
      { title: 1, slides: [{ title: 'a', content: 'b' }] },
      { title: 'a\u0000b', slides: [{ title: 'a', content: 'b' }] },
    ]) {
      const { body, headers } = json(payload)
      const res = await hostileCall(`${api}/api/v1/quick-publish`, 'POST', body, headers)
      await expectStatus('hostile', 'oversized/wrong field', res.status, (s) => s === 400)
    }
    const nul = await hostileCall(`${api}/api/v1/packages/%00?limit=1e309`, 'GET', undefined, auth)
    await expectStatus('hostile', 'NUL path', nul.status, is4xx)
  },
]

// --- run ------------------------------------------------------------------------------------

const started = performance.now()
const deadline = started + seconds * 1000
const total = () => counts.normal + counts.hostile
await uploadMultipart()
await Promise.all(
  Array.from({ length: workers }, async (_, worker) => {
    let round = 0
    while (performance.now() < deadline && total() < maxRequests && !exited) {
      round++
      try {
        const step = (worker + round) % 5
        if (step === 0) await uploadMultipart()
        else if (step === 1) await uploadPresigned()
        else if (step === 2) await launchAndCommit(worker * 1_000_000 + round)
        else if (step === 3) await list()
      } catch (err) {
        fail('normal', `worker ${worker}: ${(err as Error).message}`)
      }
      try {
        await HOSTILE[(worker + round) % HOSTILE.length]?.()
      } catch (err) {
        // A hostile request the server cut off instead of answering is a refusal without the
        // error body: counted against the hostile side, never the normal one.
        fail('hostile', `worker ${worker}: ${(err as Error).message}`)
      }
    }
  }),
)
clearInterval(sampler)

const alive =
  !exited && (await call(`${api}/healthz`, 'GET').catch(() => ({ status: 0 }))).status === 200
const cpu = server.pid && !exited ? procStat(server.pid).cpuSeconds : Number.NaN
const elapsed = (performance.now() - started) / 1000
const peak = Math.max(...rss)
const firstMinute = rss.slice(0, 60)
const lastMinute = rss.slice(-60)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
server.kill('SIGTERM')
await agent.close()
await hostileAgent.close()

console.log(`soak: ${elapsed.toFixed(0)} s, ${workers} clients, ${total()} requests`)
console.log(`  normal:  ${counts.normal} requests, ${counts.normalFailed} answered wrongly`)
console.log(`  hostile: ${counts.hostile} requests, ${counts.hostileFailed} not refused with a 4xx`)
console.log(
  `  server RSS: peak ${peak.toFixed(0)} MB (bound ${rssBoundMb} MB), median first minute ` +
    `${median(firstMinute).toFixed(0)} MB, last minute ${median(lastMinute).toFixed(0)} MB`,
)
console.log(
  `  server CPU time: ${cpu.toFixed(1)} s (${((cpu / elapsed) * 100).toFixed(0)} % of one core)`,
)
console.log(`  server alive at the end: ${alive ? 'yes' : `no (${exited})`}`)
for (const f of failures) console.log(`  ! ${f}`)
const passed =
  alive && counts.normalFailed === 0 && counts.hostileFailed === 0 && peak <= rssBoundMb
console.log(passed ? 'PASS' : 'FAIL')
process.exit(passed ? 0 : 1)
