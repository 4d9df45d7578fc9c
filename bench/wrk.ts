/**
 * wrk (Debian's `wrk` package) as a load generator for GET workloads: a C event loop that costs
 * a fraction of autocannon's CPU per request, so that on a 2-core machine the server under test,
 * not the client, is what saturates (issue 15.4) — without HTTP pipelining, which browsers do
 * not use (bench/README.md, "Content").
 *
 * One wrk thread cycles through the requests in order; a Lua `done` hook prints the totals, the
 * latency percentiles and wrk's own CPU time (its /proc/self/stat, every thread included) as one
 * line of JSON.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CLOCK_TICKS } from './server-cpu.ts'

/** BENCH_WRK: the wrk binary (default /usr/bin/wrk). */
export const WRK = process.env.BENCH_WRK ?? '/usr/bin/wrk'

export function wrkAvailable(): boolean {
  return existsSync(WRK)
}

export interface WrkRequest {
  path: string
  headers?: Record<string, string>
}

export interface WrkOptions {
  url: string
  /** Each with one request in flight: wrk counts a scripted request's answers one by one. */
  connections: number
  seconds: number
  requests: readonly WrkRequest[]
}

export interface WrkResult {
  requests: number
  bytes: number
  wallSeconds: number
  /** Connect, read, write and timeout errors. */
  errors: number
  /** Answers with a status of 400 or more. */
  non2xx: number
  p50Ms: number
  p99Ms: number
  /** wrk's own CPU time (user + system) over the run. */
  clientCpuSeconds: number
}

const RESULT_MARK = 'WRK_RESULT '

/** A Lua string literal of `text` (every byte escaped: paths and headers are ASCII anyway). */
function luaString(text: string): string {
  return `"${[...Buffer.from(text)].map((b) => `\\${b}`).join('')}"`
}

function script(requests: readonly WrkRequest[]): string {
  const formatted = requests.map((r) => {
    const headers = Object.entries(r.headers ?? {})
      .map(([name, value]) => `[${luaString(name)}] = ${luaString(value)}`)
      .join(', ')
    return `wrk.format("GET", ${luaString(r.path)}, { ${headers} })`
  })
  return `
-- Formatted in init: wrk.host (the Host header wrk.format adds) is set only by then.
local requests
init = function(_)
  requests = { ${formatted.join(',\n')} }
end
local next = 0
request = function()
  next = next % #requests + 1
  return requests[next]
end
done = function(summary, latency, _)
  local f = io.open("/proc/self/stat")
  local stat = f:read("*a")
  f:close()
  local fields = {}
  for field in stat:match(".*%) (.*)"):gmatch("%S+") do fields[#fields + 1] = field end
  local e = summary.errors
  io.write(string.format(
    '${RESULT_MARK}{"requests":%d,"bytes":%d,"micros":%d,"errors":%d,"non2xx":%d,"p50":%d,"p99":%d,"ticks":%d}\\n',
    summary.requests, summary.bytes, summary.duration, e.connect + e.read + e.write + e.timeout,
    e.status, latency:percentile(50), latency:percentile(99), fields[12] + fields[13]))
end
`
}

/** Runs wrk once with one thread; its figures, or an error with its output. */
export async function runWrk(options: WrkOptions): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'cp-wrk-'))
  try {
    const file = join(dir, 'requests.lua')
    writeFileSync(file, script(options.requests))
    const args = ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '-s', file]
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(WRK, [...args, options.url], { stdio: ['ignore', 'pipe', 'pipe'] })
      let text = ''
      child.stdout.on('data', (chunk: Buffer) => {
        text += chunk
      })
      child.stderr.on('data', (chunk: Buffer) => {
        text += chunk
      })
      child.once('error', reject)
      child.once('exit', (code) =>
        code === 0 ? resolve(text) : reject(new Error(`wrk exited ${code}: ${text}`)),
      )
    })
    const line = output.split('\n').find((l) => l.startsWith(RESULT_MARK))
    if (!line) throw new Error(`wrk printed no result: ${output}`)
    const r = JSON.parse(line.slice(RESULT_MARK.length)) as Record<string, number>
    const n = (key: string) => r[key] ?? 0
    return {
      requests: n('requests'),
      bytes: n('bytes'),
      wallSeconds: n('micros') / 1e6,
      errors: n('errors'),
      non2xx: n('non2xx'),
      p50Ms: n('p50') / 1000,
      p99Ms: n('p99') / 1000,
      clientCpuSeconds: n('ticks') / CLOCK_TICKS,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
