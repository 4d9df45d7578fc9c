/**
 * Content serving (`/c/{token}/{path}`) against nginx serving the same files from disk.
 * Target (content-serving issue, issue 15.4): per second of each server's own CPU time, at
 * least 70 % of nginx's requests on the mixed and on the small-files workload. Requests per
 * wall second are reported too, with each side's CPU and which was saturated: on a 2-core
 * machine the load generator competes with the server, so wall-clock figures measure it.
 *   node bench/content.bench.ts [seconds=10] [connections=50] [rounds=1] [pipelining=1]
 *   BENCH_WORKLOADS=small,video to run only some of mixed, small, video.
 *
 * Our server runs in a child process (this file with `--serve`): the real content app on the
 * fs blob store, holding a package ingested through `createFromZip`. nginx, when
 * /usr/sbin/nginx (or BENCH_NGINX) exists, runs as the current user with a temp config, one
 * worker (our server is one Node process too), sendfile on, no access log, and the same
 * security headers. wrk (Debian's `wrk`; wrk.ts) drives each for the same fixed duration after a
 * short warm-up, one request in flight per connection as a browser sends them, alternating
 * between the servers when there are several rounds (each round is printed; the median run is
 * kept). wrk costs so little CPU per request that every server saturates a core: with
 * autocannon (the fallback without wrk, and for pipelined runs) the client saturated first,
 * unless requests were pipelined — and Node's server answers a pipeline one write per answer
 * while nginx corks it into one, which favoured nginx on traffic no browser sends. Server CPU
 * is read from /proc/<pid>/stat before and after each run (nginx runs with master_process off,
 * so its one process is its worker); the load average is printed too, since a shared machine
 * skews everything.
 * A third server, bare `node:http` answering the same files from memory with the same headers
 * (`--bare`; BENCH_BARE=0 leaves it out), is measured alike: the floor any Node server pays.
 * Results go to bench/results/content.json.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { type AddressInfo, createServer } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import yazl from 'yazl'
import { buildContentApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { MIME_TYPES } from '../src/infra/blobs/mime-types.ts'
import { createContext } from '../src/main/context.ts'
import { signToken } from '../src/shared/signed-token.ts'
import {
  autocannon,
  type CannonRequest,
  type CpuUse,
  perServerCpuSecond,
  startCpu,
  withClientCpu,
} from './server-cpu.ts'
import { runWrk, wrkAvailable } from './wrk.ts'

const here = dirname(fileURLToPath(import.meta.url))
/** BENCH_NGINX: the nginx binary (default /usr/sbin/nginx; an unpacked .deb works too). */
const NGINX = process.env.BENCH_NGINX ?? '/usr/sbin/nginx'
const VIDEO = 'media/video.mp4'
const VIDEO_BYTES = 50 * 1024 * 1024
const RANGE_BYTES = 1024 * 1024

/** A course-like set: pages, scripts, styles, images, a font, data; sizes as in real packages. */
function smallFiles(): Map<string, Buffer> {
  const text = (bytes: number, unit: string) =>
    Buffer.from(unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes))
  const files = new Map<string, Buffer>()
  files.set('index.html', text(6_000, '<p>Lesson text for the bench.</p>\n'))
  files.set('lesson/page1.html', text(4_500, '<li>Item of the page</li>\n'))
  files.set('lesson/page2.html', text(9_000, '<div class="x">More text</div>\n'))
  files.set('js/scormdriver.js', text(48_000, 'function f(a){return a+1}\n'))
  files.set('js/app.js', text(18_000, 'var x = document.getElementById("a");\n'))
  files.set('css/style.css', text(7_000, '.a{margin:0;padding:1px}\n'))
  files.set('data/quiz.json', text(2_000, '{"q":"question","a":[1,2,3]},'))
  files.set('fonts/body.woff2', randomBytes(28_000))
  for (const [i, size] of [12_000, 20_000, 26_000, 85_000, 4_000, 14_000].entries()) {
    files.set(`images/pic${i}.jpg`, randomBytes(size))
  }
  files.set('images/logo.png', randomBytes(4_700))
  return files
}

const MANIFEST = `<?xml version="1.0"?>
<manifest identifier="bench" version="1" xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">
  <metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>
  <organizations default="o"><organization identifier="o"><title>Bench</title>
    <item identifier="i" identifierref="r"><title>Start</title></item></organization></organizations>
  <resources><resource identifier="r" type="webcontent" adlcp:scormtype="sco" href="index.html">
    <file href="index.html"/></resource></resources>
</manifest>`

async function writeZip(path: string, files: Map<string, Buffer>): Promise<void> {
  const zip = new yazl.ZipFile()
  zip.addBuffer(Buffer.from(MANIFEST), 'imsmanifest.xml')
  for (const [name, data] of files) {
    zip.addBuffer(data, name, { compress: /\.(html|js|css|json)$/.test(name) })
  }
  zip.end()
  const { createWriteStream } = await import('node:fs')
  await new Promise<void>((resolve, reject) => {
    zip.outputStream.pipe(createWriteStream(path)).on('finish', resolve).on('error', reject)
  })
}

/** Child mode: ingest the zip, sign a token, serve the content app; print where. */
async function serve(zipPath: string, dataDir: string): Promise<void> {
  const config = loadConfig({
    DATA_DIR: dataDir,
    SECRET_KEY: 'bench-secret-bench-secret-bench-secret-0000',
    LOG_LEVEL: 'silent',
    // One content origin: the bench reaches the server as 127.0.0.1, not a tenant's host name.
    CONTENT_ORIGINS: 'single',
  })
  const ctx = await createContext(config)
  const tenant = await ctx.services.tenants.createTenant({ name: 'bench' })
  const scope = { tenantId: tenant.tenantId, mode: 'test' as const }
  const detail = await ctx.services.packages.createFromZip(scope, {
    zipPath,
    filename: 'bench.zip',
    uploadedBy: null,
  })
  const versionId = detail.versions[0]?.id ?? ''
  const row = await ctx.db.kysely
    .selectFrom('package_versions')
    .select('blob_prefix')
    .where('id', '=', versionId)
    .executeTakeFirstOrThrow()
  const token = signToken(
    config.secretKey,
    'content',
    { p: row.blob_prefix, sid: 'ses_bench' },
    new Date(Date.now() + 12 * 3600 * 1000),
  )
  const app = await buildContentApp(ctx)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  process.stdout.write(`${JSON.stringify({ port, token })}\n`)
  process.once('SIGTERM', () => {
    void app.close().then(() => ctx.close())
  })
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/**
 * Child mode `--bare`: the floor for any Node server — `node:http` alone answering from memory
 * with the same headers (no token check, no framework, no cache bookkeeping). It shows how much
 * of the gap to nginx is Node's HTTP stack itself, which no change in Courseport can remove.
 */
async function serveBare(www: string): Promise<void> {
  const { createServer: createHttpServer } = await import('node:http')
  const { readdirSync, statSync } = await import('node:fs')
  const files = new Map<string, { bytes: Buffer; headers: string[] }>()
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name)
      if (statSync(full).isDirectory()) walk(full, `${prefix}${name}/`)
      else {
        const bytes = readFileSync(full)
        const ext = name.slice(name.lastIndexOf('.') + 1)
        files.set(`${prefix}${name}`, {
          bytes,
          headers: [
            'x-content-type-options',
            'nosniff',
            'referrer-policy',
            'strict-origin-when-cross-origin',
            'cross-origin-resource-policy',
            'same-origin',
            'cache-control',
            'private, max-age=43200, immutable',
            'etag',
            `"${bytes.length.toString(16)}"`,
            'last-modified',
            new Date().toUTCString(),
            'accept-ranges',
            'bytes',
            'content-type',
            (MIME_TYPES as Record<string, string>)[ext] ?? 'application/octet-stream',
          ],
        })
      }
    }
  }
  walk(www, '')
  const server = createHttpServer((req, res) => {
    const url = req.url ?? ''
    const file = files.get(url.slice(url.indexOf('/', 3) + 1))
    if (!file) {
      res.writeHead(404).end()
      return
    }
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '')
    if (range) {
      const start = Number(range[1])
      const end = Math.min(Number(range[2]), file.bytes.length - 1)
      res.writeHead(206, [
        ...file.headers,
        'content-range',
        `bytes ${start}-${end}/${file.bytes.length}`,
        'content-length',
        String(end - start + 1),
      ])
      res.end(file.bytes.subarray(start, end + 1))
      return
    }
    res.writeHead(200, [...file.headers, 'content-length', String(file.bytes.length)])
    res.end(file.bytes)
  })
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`)
  })
  process.once('SIGTERM', () => server.close())
}

async function startBare(www: string) {
  const child = spawn(
    process.execPath,
    [...profileArgs(), fileURLToPath(import.meta.url), '--bare', www],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  const line = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('\n')) resolve(out.split('\n')[0] ?? '')
    })
    child.once('exit', (code) => reject(new Error(`bare server exited (${code})`)))
  })
  return { child, port: (JSON.parse(line) as { port: number }).port }
}

/**
 * BENCH_CPU_PROF=<dir>: both Node servers (ours and the bare one) write a V8 CPU profile there
 * when they stop (profiling slows them: figures from such a run are not quoted).
 */
function profileArgs(): string[] {
  const dir = process.env.BENCH_CPU_PROF
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []
}

async function startOurs(zipPath: string, dataDir: string) {
  const child = spawn(
    process.execPath,
    [...profileArgs(), fileURLToPath(import.meta.url), '--serve', zipPath, dataDir],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  const line = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('\n')) resolve(out.split('\n')[0] ?? '')
    })
    child.once('exit', (code) => reject(new Error(`our server exited (${code}) before listening`)))
  })
  const { port, token } = JSON.parse(line) as { port: number; token: string }
  return { child, port, token }
}

async function startNginx(work: string, www: string) {
  const port = await freePort()
  const types = new Map<string, string[]>()
  for (const [ext, type] of Object.entries(MIME_TYPES)) {
    types.set(type, [...(types.get(type) ?? []), ext])
  }
  const typeLines = [...types].map(([type, exts]) => `    ${type} ${exts.join(' ')};`).join('\n')
  const temp = (name: string) => `${name}_temp_path ${join(work, `nginx-${name}`)};`
  const conf = join(work, 'nginx.conf')
  writeFileSync(
    conf,
    `worker_processes 1;
master_process off;
daemon off;
pid ${join(work, 'nginx.pid')};
error_log ${join(work, 'nginx-error.log')} warn;
events { worker_connections 4096; }
http {
  access_log off;
  ${temp('client_body')} ${temp('proxy')} ${temp('fastcgi')} ${temp('uwsgi')} ${temp('scgi')}
  types {
${typeLines}
  }
  default_type application/octet-stream;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:${port};
    root ${www};
    add_header X-Content-Type-Options nosniff;
    add_header Referrer-Policy strict-origin-when-cross-origin;
    add_header Cross-Origin-Resource-Policy same-origin;
    add_header Cache-Control "private, max-age=43200, immutable";
    location /c/ { rewrite ^/c/[^/]+/(.*)$ /$1 break; }
  }
}
`,
  )
  const child = spawn(NGINX, ['-p', work, '-e', join(work, 'nginx-error.log'), '-c', conf], {
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  // Ready when it answers.
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/c/x/index.html`).then((r) => r.arrayBuffer())
      return { child, port }
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  child.kill()
  throw new Error(`nginx did not start: ${readFileSync(join(work, 'nginx-error.log'), 'utf8')}`)
}

type Workload = 'mixed' | 'small' | 'video'

/** One cycle of requests per connection. Video windows are 1 MiB, as a seeking player asks. */
function workload(kind: Workload, token: string, names: string[]): CannonRequest[] {
  const base = `/c/${token}/`
  const small = names.map((name) => ({ path: `${base}${name}` }))
  const ranges = Array.from({ length: 16 }, (_, i) => {
    const start = (i * 3 * RANGE_BYTES) % (VIDEO_BYTES - RANGE_BYTES)
    return {
      path: `${base}${VIDEO}`,
      headers: { range: `bytes=${start}-${start + RANGE_BYTES - 1}` },
    }
  })
  if (kind === 'small') return small
  if (kind === 'video') return ranges
  // Every small file once and two video windows per cycle.
  return [...small.slice(0, 8), ranges[0], ...small.slice(8), ranges[5]].filter(
    (r): r is CannonRequest => r !== undefined,
  )
}

interface Measured {
  requestsPerSecond: number
  megabytesPerSecond: number
  p50Ms: number
  p99Ms: number
  errors: number
  non2xx: number
  /** Requests per second of the server's own CPU time: the figure the target holds on. */
  requestsPerServerCpuSecond: number | null
  cpu: CpuUse
}

/**
 * One measured run (after a 2 s warm-up: JIT, caches) by the load generator in use: wrk, whose
 * own CPU it reports itself (wrk.ts); autocannon, in this process, when wrk is not installed,
 * for pipelined runs, or with BENCH_CLIENT=autocannon.
 */
async function measure(
  port: number,
  requests: CannonRequest[],
  options: RunOptions,
  server: ChildProcess,
): Promise<Measured> {
  const url = `http://127.0.0.1:${port}`
  const { seconds, connections, pipelining } = options
  if (options.client === 'wrk') {
    await runWrk({ url, connections, seconds: 2, requests })
    const stopCpu = startCpu([server.pid])
    const result = await runWrk({ url, connections, seconds, requests })
    const cpu = withClientCpu(stopCpu(), result.clientCpuSeconds)
    return {
      requestsPerSecond: result.requests / result.wallSeconds,
      megabytesPerSecond: result.bytes / result.wallSeconds / 1e6,
      p50Ms: result.p50Ms,
      p99Ms: result.p99Ms,
      errors: result.errors,
      non2xx: result.non2xx,
      requestsPerServerCpuSecond: perServerCpuSecond(result.requests, cpu),
      cpu,
    }
  }
  await autocannon({ url, connections, pipelining, duration: 2, requests })
  const stopCpu = startCpu([server.pid])
  const result = await autocannon({ url, connections, pipelining, duration: seconds, requests })
  const cpu = stopCpu()
  return {
    requestsPerSecond: result.requests.average,
    megabytesPerSecond: result.throughput.average / 1e6,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    requestsPerServerCpuSecond: perServerCpuSecond(result.requests.total, cpu),
    cpu,
  }
}

interface RunOptions {
  seconds: number
  connections: number
  pipelining: number
  client: 'wrk' | 'autocannon'
}

/** The run with the median requests/s. */
function median(runs: Measured[]): Measured {
  const sorted = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)
  const middle = sorted[Math.floor(sorted.length / 2)]
  if (!middle) throw new Error('no runs')
  return middle
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

function describe(name: string, m: Measured): string {
  const pct = (n: number | null) => (n === null ? '  n/a' : `${n.toFixed(0).padStart(3)} %`)
  const perCpu = m.requestsPerServerCpuSecond?.toFixed(0) ?? 'n/a'
  const bad = m.errors + m.non2xx > 0 ? `, ${m.errors} errors, ${m.non2xx} non-2xx` : ''
  return `${name.padEnd(14)} ${m.requestsPerSecond.toFixed(0).padStart(7)} req/s ${perCpu.padStart(7)} req/server-CPU-s ${m.megabytesPerSecond.toFixed(0).padStart(5)} MB/s  server ${pct(m.cpu.serverCorePercent)} client ${pct(m.cpu.clientCorePercent)} ${m.cpu.saturated.padEnd(7)} p50 ${m.p50Ms} ms p99 ${m.p99Ms} ms${bad}`
}

/** One round's figures side by side: the spread between rounds is part of the result. */
function describeRound(name: string, ours: Measured, nginx: Measured | null): string {
  const perCpu = (m: Measured) => m.requestsPerServerCpuSecond ?? 0
  const cores = (m: Measured) =>
    `server ${m.cpu.serverCorePercent?.toFixed(0)} % client ${m.cpu.clientCorePercent.toFixed(0)} %`
  const line = `${name}: ours ${perCpu(ours).toFixed(0)}/server-CPU-s (${cores(ours)})`
  if (!nginx) return line
  const ratio = ((perCpu(ours) / perCpu(nginx)) * 100).toFixed(0)
  return `${line}, nginx ${perCpu(nginx).toFixed(0)} (${cores(nginx)}): ${ratio} %`
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 10)
  const connections = Number(process.argv[3] ?? 50)
  const rounds = Number(process.argv[4] ?? 1)
  const pipelining = Number(process.argv[5] ?? 1)
  // wrk cannot pipeline scripted requests (wrk.ts); autocannon can.
  const client =
    pipelining > 1 || process.env.BENCH_CLIENT === 'autocannon' || !wrkAvailable()
      ? 'autocannon'
      : 'wrk'
  const run: RunOptions = { seconds, connections, pipelining, client }
  const work = mkdtempSync(join(tmpdir(), 'cp-bench-content-'))
  const children: ChildProcess[] = []
  try {
    const files = smallFiles()
    const names = [...files.keys()]
    files.set(VIDEO, randomBytes(VIDEO_BYTES))
    const zipPath = join(work, 'bench.zip')
    await writeZip(zipPath, files)
    const www = join(work, 'www')
    for (const [name, data] of files) {
      mkdirSync(dirname(join(www, name)), { recursive: true })
      writeFileSync(join(www, name), data)
    }
    const ours = await startOurs(zipPath, join(work, 'data'))
    children.push(ours.child)
    const nginx = existsSync(NGINX) ? await startNginx(work, www) : null
    if (nginx) children.push(nginx.child)
    else console.log(`${NGINX} not found: measuring courseport only`)
    // BENCH_BARE=0 leaves out the bare node:http reference.
    const bare = process.env.BENCH_BARE === '0' ? null : await startBare(www)
    if (bare) children.push(bare.child)

    const workloads = (process.env.BENCH_WORKLOADS?.split(',') ?? [
      'mixed',
      'small',
      'video',
    ]) as Workload[]
    const results: Record<string, unknown> = {}
    console.log(
      `${seconds} s per run, ${client}, ${connections} connections × ${pipelining} pipelined, ${rounds} round(s), ${names.length} small files; load average ${loadavg()[0]?.toFixed(1)} (shared 2-core machine)`,
    )
    console.log(
      `${''.padEnd(14)} throughput   per server CPU          bytes   CPU (100 % = one core), saturated`,
    )
    for (const kind of workloads) {
      const requests = workload(kind, ours.token, names)
      // Alternating runs, so background load on a shared machine hits both alike.
      const oursRuns: Measured[] = []
      const nginxRuns: Measured[] = []
      const bareRuns: Measured[] = []
      for (let round = 0; round < rounds; round++) {
        const oursRun = await measure(ours.port, requests, run, ours.child)
        oursRuns.push(oursRun)
        const nginxRun = nginx ? await measure(nginx.port, requests, run, nginx.child) : null
        if (nginxRun) nginxRuns.push(nginxRun)
        if (bare) bareRuns.push(await measure(bare.port, requests, run, bare.child))
        if (rounds > 1) console.log(describeRound(`${kind} round ${round + 1}`, oursRun, nginxRun))
      }
      const oursResult = median(oursRuns)
      console.log(describe(`${kind}: ours`, oursResult))
      const entry: Record<string, unknown> = { courseport: oursResult }
      if (nginx) {
        const nginxResult = median(nginxRuns)
        const ratio = oursResult.requestsPerSecond / nginxResult.requestsPerSecond
        const cpuRatio =
          oursResult.requestsPerServerCpuSecond !== null && nginxResult.requestsPerServerCpuSecond
            ? oursResult.requestsPerServerCpuSecond / nginxResult.requestsPerServerCpuSecond
            : null
        console.log(describe(`${kind}: nginx`, nginxResult))
        const target = kind === 'video' ? '' : ' (target ≥ 70 %)'
        console.log(
          `${kind}: courseport = ${cpuRatio === null ? 'n/a' : (cpuRatio * 100).toFixed(0)} % of nginx per server CPU${target}; ${(ratio * 100).toFixed(0)} % by throughput`,
        )
        // Each round's pair was measured minutes apart from the others: a machine that drifts
        // between rounds moves the medians above apart, not a round's own ratio.
        const roundCpuRatios = oursRuns.map(
          (o, i) =>
            (o.requestsPerServerCpuSecond ?? 0) / (nginxRuns[i]?.requestsPerServerCpuSecond ?? 1),
        )
        if (rounds > 1) {
          const sorted = [...roundCpuRatios].sort((a, b) => a - b)
          const middle = sorted[Math.floor(sorted.length / 2)] ?? 0
          const list = roundCpuRatios.map((r) => (r * 100).toFixed(0)).join(', ')
          console.log(
            `${kind}: per round ${list} % of nginx per server CPU (median ${(middle * 100).toFixed(0)} %)`,
          )
        }
        Object.assign(entry, { nginx: nginxResult, ratio, cpuRatio, roundCpuRatios })
      }
      if (bare) {
        const bareResult = median(bareRuns)
        console.log(describe(`${kind}: node:http`, bareResult))
        const perCpu = (m: Measured) => m.requestsPerServerCpuSecond ?? 0
        const nginxResult = entry.nginx as Measured | undefined
        console.log(
          `${kind}: courseport = ${((perCpu(oursResult) / perCpu(bareResult)) * 100).toFixed(0)} % of bare node:http per server CPU${nginxResult ? `; bare node:http = ${((perCpu(bareResult) / perCpu(nginxResult)) * 100).toFixed(0)} % of nginx` : ''}`,
        )
        Object.assign(entry, { bareNodeHttp: bareResult })
      }
      results[kind] = entry
    }
    const output = {
      date: new Date().toISOString(),
      node: process.version,
      seconds,
      connections,
      pipelining,
      client,
      rounds,
      loadAverageAtEnd: loadavg()[0],
      files: { small: names.length, videoBytes: VIDEO_BYTES, rangeBytes: RANGE_BYTES },
      target: 'mixed.cpuRatio >= 0.70 and small.cpuRatio >= 0.70 (requests per server-CPU-second)',
      nginx: nginx ? 'nginx 1 worker, sendfile' : 'absent',
      results,
    }
    mkdirSync(join(here, 'results'), { recursive: true })
    writeFileSync(join(here, 'results', 'content.json'), `${JSON.stringify(output, null, 2)}\n`)
  } finally {
    for (const child of children) await stop(child)
    rmSync(work, { recursive: true, force: true })
  }
}

if (process.argv[2] === '--serve') {
  await serve(process.argv[3] ?? '', process.argv[4] ?? '')
} else if (process.argv[2] === '--bare') {
  await serveBare(process.argv[3] ?? '')
} else {
  await main()
}
