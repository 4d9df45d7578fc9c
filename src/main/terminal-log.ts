import { Writable } from 'node:stream'
import { pino } from 'pino'

/**
 * The process logger of `courseport serve` and `worker`: JSON lines (pino) when the output is a
 * file, a pipe or a log collector; on a terminal, short readable lines instead (issue 12, "the
 * first ten minutes"): `12:04:05 INFO  courseport is serving api=…`, one line per request
 * (`GET /api/v1/packages 200 4 ms`) rather than pino's two, and no lines for health checks
 * that succeed. Nothing is dropped from files or pipes.
 */
export function processLogger(level: string, out: NodeJS.WriteStream = process.stdout) {
  // pino's own fast writer on stdout; any other stream (tests) as given.
  if (!out.isTTY) return out === process.stdout ? pino({ level }) : pino({ level }, out)
  return pino({ level }, new TerminalLines(out))
}

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO ',
  40: 'WARN ',
  50: 'ERROR',
  60: 'FATAL',
}
const COLOURS: Record<number, string> = { 40: '\x1b[33m', 50: '\x1b[31m', 60: '\x1b[31m' }
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'req', 'res'])
const QUIET_PATHS = /^\/(healthz|readyz)(\?|$)/

type Line = Record<string, unknown> & { level: number; time: number; msg?: string }

/** pino's JSON lines in, terminal lines out (see `processLogger`). */
class TerminalLines extends Writable {
  readonly #out: NodeJS.WriteStream
  /** Method and URL of requests in flight, by request id: pino logs them on the first line. */
  readonly #requests = new Map<string, string>()
  #partial = ''

  constructor(out: NodeJS.WriteStream) {
    super()
    this.#out = out
  }

  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    const lines = (this.#partial + chunk.toString('utf8')).split('\n')
    this.#partial = lines.pop() ?? ''
    for (const text of lines) if (text) this.#out.write(this.#format(text))
    done()
  }

  #format(text: string): string {
    let line: Line
    try {
      line = JSON.parse(text) as Line
    } catch {
      return `${text}\n`
    }
    const reqId = typeof line.reqId === 'string' ? line.reqId : null
    const req = line.req as { method?: string; url?: string } | undefined
    if (reqId && req && line.msg === 'incoming request') {
      this.#requests.set(reqId, `${req.method} ${req.url}`)
      return ''
    }
    let msg = line.msg ?? ''
    const res = line.res as { statusCode?: number } | undefined
    if (reqId && res && line.msg === 'request completed') {
      const request = this.#requests.get(reqId) ?? '(request)'
      this.#requests.delete(reqId)
      const status = res.statusCode ?? 0
      if (status < 400 && QUIET_PATHS.test(request.split(' ')[1] ?? '')) return ''
      const ms = typeof line.responseTime === 'number' ? ` ${line.responseTime.toFixed(0)} ms` : ''
      msg = `${request} ${status}${ms}`
    }
    const time = new Date(line.time).toISOString().slice(11, 19)
    const level = LEVELS[line.level] ?? String(line.level)
    const colour = COLOURS[line.level]
    const extra = Object.entries(line)
      .filter(([key]) => !HIDDEN.has(key) && key !== 'responseTime' && key !== 'err')
      .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    const err = line.err as { stack?: string } | undefined
    const stack = typeof err?.stack === 'string' ? `\n${err.stack}` : ''
    const body = [msg, ...extra].filter(Boolean).join(' ') + stack
    return colour ? `${time} ${colour}${level}\x1b[0m ${body}\n` : `${time} ${level} ${body}\n`
  }
}
