import { spawn } from 'node:child_process'

export interface RunOptions {
  /** The child's whole environment (nothing is inherited). */
  env: Record<string, string>
  cwd?: string
  /** Hard limit; the whole process group is killed when it runs out. */
  timeoutMs: number
  signal?: AbortSignal
  /** Bytes of stdout and of stderr kept (the tail). Default 8 192. */
  keepBytes?: number
}

export interface RunResult {
  code: number | null
  signal: NodeJS.Signals | null
  timedOut: boolean
  aborted: boolean
  /** Tail of stdout and stderr, interleaved by stream (stdout first). */
  output: string
}

function killGroup(pid: number | undefined): void {
  if (!pid) return
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // ESRCH: the group is gone already.
  }
}

/**
 * Runs a command as the leader of a new process group and resolves when it has exited. On
 * timeout or abort the whole group is killed (LibreOffice forks: killing the leader alone would
 * leave `soffice.bin` running), and so is whatever the leader left behind when it exits.
 * Never rejects for the command's own failure: the caller reads `code`, `timedOut`, `output`.
 */
export function runProcessGroup(
  command: string,
  args: readonly string[],
  options: RunOptions,
): Promise<RunResult> {
  const keep = options.keepBytes ?? 8192
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      resolve({ code: null, signal: null, timedOut: false, aborted: true, output: '' })
      return
    }
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    const tail = (s: string) => (s.length > keep ? s.slice(-keep) : s)
    child.stdout.on('data', (c: Buffer) => {
      out = tail(out + c.toString('utf8'))
    })
    child.stderr.on('data', (c: Buffer) => {
      err = tail(err + c.toString('utf8'))
    })
    let timedOut = false
    let aborted = false
    const timer = setTimeout(() => {
      timedOut = true
      killGroup(child.pid)
    }, options.timeoutMs)
    const onAbort = () => {
      aborted = true
      killGroup(child.pid)
    }
    options.signal?.addEventListener('abort', onAbort, { once: true })
    child.once('error', (e) => {
      clearTimeout(timer)
      options.signal?.removeEventListener('abort', onAbort)
      reject(e)
    })
    child.once('exit', () => killGroup(child.pid))
    child.once('close', (code, signal) => {
      clearTimeout(timer)
      options.signal?.removeEventListener('abort', onAbort)
      resolve({ code, signal, timedOut, aborted, output: [out, err].filter(Boolean).join('\n') })
    })
  })
}
