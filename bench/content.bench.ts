/**
 * Content serving (`/c/{token}/{path}`) against nginx serving the same files from disk.
 * Target (content-serving issue): at least 70 % of nginx's requests/s on the mixed workload.
 *   node bench/content.bench.ts [seconds=10] [connections=50] [rounds=1]
 *   BENCH_WORKLOADS=small,video to run only some of mixed, small, video.
 *
 * Our server runs in a child process (this file with `--serve`): the real content app on the
 * fs blob store, holding a package ingested through `createFromZip`. nginx, when
 * /usr/sbin/nginx exists, runs as the current user with a temp config, one worker (our server
 * is one Node process too), sendfile on, no access log, and the same security headers.
 * autocannon drives each for the same fixed duration after a short warm-up, alternating between
 * the two servers when there are several rounds (the median run is kept); the server's own CPU
 * use is reported, so a run where the load generator was the limit shows up as such, and the
 * load average, since a shared machine skews everything.
 * Results go to bench/results/content.json.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
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

const here = dirname(fileURLToPath(import.meta.url))
const NGINX = '/usr/sbin/nginx'
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

async function startOurs(zipPath: string, dataDir: string) {
  const child = spawn(
    process.execPath,
    [fileURLToPath(import.meta.url), '--serve', zipPath, dataDir],
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

// autocannon is CommonJS without types; this is the part used here.
interface CannonRequest {
  path: string
  headers?: Record<string, string>
}
interface CannonResult {
  requests: { average: number; total: number }
  throughput: { average: number }
  latency: { p50: number; p99: number }
  errors: number
  timeouts: number
  non2xx: number
}
type Cannon = (options: {
  url: string
  connections: number
  duration: number
  requests: CannonRequest[]
}) => Promise<CannonResult>
const requireCjs = createRequire(import.meta.url)
const autocannon = requireCjs('autocannon') as Cannon
/**
 * autocannon appends every response body to a string (`body += chunk`, a UTF-8 decode per
 * chunk) for its optional body checks, which caps it near 100 MB/s on the 2-core reference
 * machine: the bench would measure the client, not the servers. Bodies are not checked here,
 * so that bookkeeping is switched off; bytes are still counted from the socket.
 */
const queue = requireCjs('autocannon/lib/pipelinedRequestsQueue.js') as {
  prototype: { addBody(data: Buffer): void }
}
queue.prototype.addBody = () => {}

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

/** CPU seconds (user + system, all threads) a process has used so far; null off Linux. */
function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return null
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100 // utime, stime in USER_HZ (100)
}

interface Measured {
  requestsPerSecond: number
  megabytesPerSecond: number
  p50Ms: number
  p99Ms: number
  errors: number
  non2xx: number
  serverCpuPercent: number | null
}

async function measure(
  port: number,
  requests: CannonRequest[],
  seconds: number,
  connections: number,
  server: ChildProcess,
): Promise<Measured> {
  const url = `http://127.0.0.1:${port}`
  await autocannon({ url, connections, duration: 2, requests }) // warm-up: JIT, page cache
  const cpuBefore = cpuSeconds(server.pid)
  const result = await autocannon({ url, connections, duration: seconds, requests })
  const cpuAfter = cpuSeconds(server.pid)
  return {
    requestsPerSecond: result.requests.average,
    megabytesPerSecond: result.throughput.average / 1e6,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    serverCpuPercent:
      cpuBefore === null || cpuAfter === null ? null : ((cpuAfter - cpuBefore) / seconds) * 100,
  }
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
  const cpu = m.serverCpuPercent === null ? '' : `, server CPU ${m.serverCpuPercent.toFixed(0)} %`
  const bad = m.errors + m.non2xx > 0 ? `, ${m.errors} errors, ${m.non2xx} non-2xx` : ''
  return `${name.padEnd(11)} ${m.requestsPerSecond.toFixed(0).padStart(7)} req/s ${m.megabytesPerSecond.toFixed(0).padStart(5)} MB/s  p50 ${m.p50Ms} ms p99 ${m.p99Ms} ms${cpu}${bad}`
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 10)
  const connections = Number(process.argv[3] ?? 50)
  const rounds = Number(process.argv[4] ?? 1)
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

    const workloads = (process.env.BENCH_WORKLOADS?.split(',') ?? [
      'mixed',
      'small',
      'video',
    ]) as Workload[]
    const results: Record<string, unknown> = {}
    console.log(
      `${seconds} s per run, ${connections} connections, ${rounds} round(s), ${names.length} small files; load average ${loadavg()[0]?.toFixed(1)}`,
    )
    for (const kind of workloads) {
      const requests = workload(kind, ours.token, names)
      // Alternating runs, so background load on a shared machine hits both alike.
      const oursRuns: Measured[] = []
      const nginxRuns: Measured[] = []
      for (let round = 0; round < rounds; round++) {
        oursRuns.push(await measure(ours.port, requests, seconds, connections, ours.child))
        if (nginx) {
          nginxRuns.push(await measure(nginx.port, requests, seconds, connections, nginx.child))
        }
      }
      const oursResult = median(oursRuns)
      console.log(describe(`${kind}: ours`, oursResult))
      const entry: Record<string, unknown> = { courseport: oursResult }
      if (nginx) {
        const nginxResult = median(nginxRuns)
        const ratio = oursResult.requestsPerSecond / nginxResult.requestsPerSecond
        console.log(describe(`${kind}: nginx`, nginxResult))
        console.log(`${kind}: courseport = ${(ratio * 100).toFixed(0)} % of nginx`)
        Object.assign(entry, { nginx: nginxResult, ratio })
      }
      results[kind] = entry
    }
    const output = {
      date: new Date().toISOString(),
      node: process.version,
      seconds,
      connections,
      rounds,
      loadAverageAtEnd: loadavg()[0],
      files: { small: names.length, videoBytes: VIDEO_BYTES, rangeBytes: RANGE_BYTES },
      target: 'mixed.ratio >= 0.70',
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
} else {
  await main()
}
