import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { join } from 'node:path'

const CLI = join(import.meta.dirname, '../../src/main/cli.ts')

/** Below Linux's ephemeral range (32768–60999), so no outgoing connection is given the port. */
const PORT_RANGE = { from: 20_000, to: 32_000 }

/**
 * A TCP port that was free a moment ago on 127.0.0.1, for a child process to listen on. Not one
 * the kernel hands out for `listen(0)` or outgoing connections: on a machine busy with loopback
 * traffic (database connections, other test files' servers) such a port is soon taken again
 * and the child fails with EADDRINUSE. A random pick from a range the kernel never assigns only
 * collides with another test's pick in the same instant.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from))
    if (await canListen(port)) return port
  }
  throw new Error('no free port found')
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

export interface ServerProcess {
  child: ChildProcess
  /** `http://127.0.0.1:PORT` of the API origin (or the worker's health listener). */
  url: string
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string
  /** The development tenant's test key, when this start created it. */
  testKey: string | undefined
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<number | string>
  stop(signal?: NodeJS.Signals): Promise<number | string>
}

/**
 * Runs `courseport <args>` on the project's Node as a real child process and waits until it logs
 * `ready` (a line containing it). `env` is the whole configuration (process.env is not inherited
 * beyond PATH and the test database variables).
 */
export async function startCourseport(
  args: string[],
  env: Record<string, string>,
  options: {
    ready?: string
    timeoutMs?: number
    port?: number
    /** A script run instead of the CLI (e.g. helpers/worker.child.ts), given `args`. */
    entry?: string
  } = {},
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [options.entry ?? CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString()
  })
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'))
  })
  const ready = options.ready ?? 'courseport is serving'
  const deadline = options.timeoutMs ?? 30_000
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup()
      child.kill('SIGKILL')
      reject(new Error(`courseport ${args.join(' ')} did not log "${ready}":\n${out}`))
    }, deadline)
    const check = () => {
      if (out.includes(ready)) {
        cleanup()
        resolve()
      }
    }
    const early = () => {
      cleanup()
      reject(new Error(`courseport ${args.join(' ')} exited before "${ready}":\n${out}`))
    }
    const cleanup = () => {
      clearTimeout(timer)
      child.stdout?.off('data', check)
      child.stderr?.off('data', check)
      child.off('exit', early)
    }
    child.stdout?.on('data', check)
    child.stderr?.on('data', check)
    child.once('exit', early)
    check()
  })
  const port = options.port ?? Number(env.PORT)
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    testKey: /test key: (cp_test_[0-9A-Za-z]+)/.exec(out)?.[1],
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
}
