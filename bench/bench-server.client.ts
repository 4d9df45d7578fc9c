/**
 * The benches' side of `bench-server.ts`: start it as a child process (SQLite in a temp folder,
 * or PostgreSQL at `databaseUrl`) and upload the Golf single-SCO package to it.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))

export interface BenchServer {
  pid: number | undefined
  api: string
  key: string
  dataDir: string
  stop(): void
}

/** Starts `bench-server.ts`; resolves with what it prints on its first line. */
export async function startBenchServer(databaseUrl: string | undefined): Promise<BenchServer> {
  const env = { ...process.env }
  if (databaseUrl) env.BENCH_DATABASE_URL = databaseUrl
  else delete env.BENCH_DATABASE_URL
  const child = spawn(process.execPath, [join(here, 'bench-server.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env,
  })
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`bench-server exited (${code})`)))
  })
  const info = JSON.parse(line) as { api: string; key: string; dataDir: string }
  return { pid: child.pid, ...info, stop: () => child.kill('SIGTERM') }
}

/** Uploads the Golf single-SCO package; its package id. */
export async function uploadGolfPackage(server: BenchServer): Promise<string> {
  const zip = readFileSync(join(here, '../../shared/fixtures/scorm/golf/singlescobasic.zip'))
  const form = new FormData()
  form.append('file', new Blob([zip]), 'course.zip')
  const res = await fetch(`${server.api}/api/v1/packages/upload`, {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${server.key}` },
  })
  if (!res.ok) throw new Error(`upload: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { package: { id: string } }).package.id
}
