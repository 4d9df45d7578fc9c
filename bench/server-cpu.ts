/**
 * What the benches share so that a figure measures the server, not the load generator
 * (issue 15.4): the server process's own CPU time read from /proc, the verdict on which side
 * was saturated, and a lightened autocannon.
 */
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

/** USER_HZ: the unit of utime/stime in /proc/<pid>/stat (100 on every Linux we run on). */
export const CLOCK_TICKS = 100

/** CPU seconds (user + system, every thread) a process has used so far; null off Linux. */
export function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return null
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // The command name may hold spaces and parentheses: fields are counted after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
}

/** One phase's CPU use: the server's (from /proc) and this load generator's own. */
export interface CpuUse {
  wallSeconds: number
  serverCpuSeconds: number | null
  /** Server CPU / wall time: 100 = one core busy all the time. */
  serverCorePercent: number | null
  clientCorePercent: number
  /** Which resource limited the phase (see `saturation`). */
  saturated: Saturation
}

export type Saturation = 'server' | 'client' | 'neither'

/**
 * The server is the limit when it kept one core ≥ 85 % busy (a Node server is one thread of
 * JavaScript); otherwise the client when it did; otherwise neither (a shared machine, or
 * waiting on the disk or the database).
 */
export function saturation(serverCorePercent: number | null, clientCorePercent: number) {
  if (serverCorePercent !== null && serverCorePercent >= 85) return 'server'
  if (clientCorePercent >= 85) return 'client'
  return 'neither'
}

/** Starts measuring; the returned function ends the phase. */
export function startCpu(pids: ReadonlyArray<number | undefined>): () => CpuUse {
  const read = () => {
    const values = pids.map(cpuSeconds)
    return values.some((v) => v === null) ? null : values.reduce<number>((a, b) => a + (b ?? 0), 0)
  }
  const serverBefore = read()
  const clientBefore = process.cpuUsage()
  const started = performance.now()
  return () => {
    const wallSeconds = (performance.now() - started) / 1000
    const serverAfter = read()
    const client = process.cpuUsage(clientBefore)
    const serverCpuSeconds =
      serverBefore === null || serverAfter === null ? null : serverAfter - serverBefore
    const serverCorePercent =
      serverCpuSeconds === null ? null : (serverCpuSeconds / wallSeconds) * 100
    const clientCorePercent = ((client.user + client.system) / 1e6 / wallSeconds) * 100
    return {
      wallSeconds,
      serverCpuSeconds,
      serverCorePercent,
      clientCorePercent,
      saturated: saturation(serverCorePercent, clientCorePercent),
    }
  }
}

/**
 * The phase with the client's CPU taken from a load generator in its own process (wrk) rather
 * than from this one, which only waited for it.
 */
export function withClientCpu(cpu: CpuUse, clientCpuSeconds: number): CpuUse {
  const clientCorePercent = (clientCpuSeconds / cpu.wallSeconds) * 100
  return {
    ...cpu,
    clientCorePercent,
    saturated: saturation(cpu.serverCorePercent, clientCorePercent),
  }
}

/** Requests (or rows) per second of server CPU; null when the CPU time is unknown or zero. */
export function perServerCpuSecond(count: number, cpu: CpuUse): number | null {
  return cpu.serverCpuSeconds ? count / cpu.serverCpuSeconds : null
}

// autocannon is CommonJS without types; this is the part the benches use.
export interface CannonRequest {
  path: string
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string
  setupRequest?: (request: CannonRequest, context: Record<string, unknown>) => CannonRequest
  onResponse?: (status: number, body: string, context: Record<string, unknown>) => void
}
export interface CannonResult {
  requests: { average: number; total: number }
  throughput: { average: number }
  latency: { p50: number; p99: number }
  errors: number
  timeouts: number
  non2xx: number
}
export type Cannon = (options: {
  url: string
  connections: number
  pipelining?: number
  duration: number
  requests: CannonRequest[]
}) => Promise<CannonResult>

const requireCjs = createRequire(import.meta.url)
export const autocannon = requireCjs('autocannon') as Cannon
/**
 * autocannon appends every response body to a string (`body += chunk`, a UTF-8 decode per
 * chunk) for its optional body checks, which caps it near 100 MB/s on the 2-core reference
 * machine and costs CPU the server then cannot have. No bench checks bodies, so that bookkeeping
 * is switched off; bytes are still counted from the socket.
 */
const queue = requireCjs('autocannon/lib/pipelinedRequestsQueue.js') as {
  prototype: { addBody(data: Buffer): void }
}
queue.prototype.addBody = () => {}

/**
 * The CPU of a changing set of processes (PostgreSQL's backends serving a server's pool): `list`
 * names them at the start and at the end of the phase. A process present at both counts its
 * difference; one that appeared during the phase counts all its CPU; one that went away during
 * the phase is lost (pools keep their connections under load, so it is rare: `lost` says how
 * many).
 */
export async function startGroupCpu(
  list: () => Promise<number[]>,
): Promise<() => Promise<{ cpuSeconds: number; processes: number; lost: number }>> {
  const before = new Map<number, number>()
  for (const pid of await list()) {
    const cpu = cpuSeconds(pid)
    if (cpu !== null) before.set(pid, cpu)
  }
  return async () => {
    let cpuSecondsUsed = 0
    const after = await list()
    for (const pid of after) {
      const cpu = cpuSeconds(pid)
      if (cpu !== null) cpuSecondsUsed += cpu - (before.get(pid) ?? 0)
    }
    const lost = [...before.keys()].filter((pid) => !after.includes(pid)).length
    return { cpuSeconds: cpuSecondsUsed, processes: after.length, lost }
  }
}
