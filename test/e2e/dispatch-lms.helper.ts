/**
 * A stand-in client LMS for the dispatch end-to-end tests: one loopback origin serving a launch
 * page whose SCORM API is scorm-again (an independent runtime implementation, a dev dependency),
 * the extracted files of exported wrapper packages, and a commit endpoint that records what
 * scorm-again sends on LMSCommit/Commit — so the test sees what reached "the LMS's server".
 */
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import { freePort } from './helpers/live-server.ts'

const require = createRequire(import.meta.url)
const SCORM_AGAIN = readFileSync(require.resolve('scorm-again'))

export interface LmsRun {
  /** Wrapper package files by path. */
  files: Map<string, string>
  version: '1.2' | '2004'
  learner: { id: string; name: string }
  /**
   * A later session of the same LMS attempt: the run whose last commit the LMS gives back
   * (suspend data and location, entry `resume`), as an LMS does after an exit with `suspend`.
   */
  resumeFrom?: string
}

export interface LmsServer {
  /** e.g. http://localhost:41236 (the host name decides which allowedDomains rule applies). */
  origin(host: 'localhost' | '127.0.0.1'): string
  /** Registers a course launch; returns the path of the LMS page that plays it. */
  add(run: LmsRun): string
  /** Flattened cmi values scorm-again committed for a run, in order. */
  commits(runId: string): Array<Record<string, unknown>>
  close(): Promise<void>
}

/** Scripts that give a SCO its previous session's data, as the LMS stored it. */
function resumed(run: LmsRun, last: Record<string, unknown> | undefined): string {
  if (!last) return ''
  const text = (key: string) => JSON.stringify(String(last[key] ?? ''))
  return run.version === '1.2'
    ? `api.cmi.suspend_data = ${text('cmi.suspend_data')}
       api.cmi.core.lesson_location = ${text('cmi.core.lesson_location')}
       api.cmi.core.entry = 'resume'`
    : `api.cmi.suspend_data = ${text('cmi.suspend_data')}
       api.cmi.location = ${text('cmi.location')}
       api.cmi.entry = 'resume'`
}

function launchPage(runId: string, run: LmsRun, last?: Record<string, unknown>): string {
  const isOld = run.version === '1.2'
  const api = isOld ? 'API' : 'API_1484_11'
  const ctor = isOld ? 'Scorm12API' : 'Scorm2004API'
  const learner = isOld
    ? `api.cmi.core.student_id = ${JSON.stringify(run.learner.id)}
       api.cmi.core.student_name = ${JSON.stringify(run.learner.name)}`
    : `api.cmi.learner_id = ${JSON.stringify(run.learner.id)}
       api.cmi.learner_name = ${JSON.stringify(run.learner.name)}`
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Acme LMS</title>
<script src="/scorm-again.js"></script>
<script>
  var api = new window.${ctor}({
    lmsCommitUrl: '/lms/commit/${runId}',
    dataCommitFormat: 'flattened',
    autocommit: false,
    logLevel: 5
  })
  ${learner}
  ${resumed(run, last)}
  window.${api} = api
</script>
<style>body{margin:0} iframe{border:0;width:100vw;height:100vh;display:block}</style>
</head><body><iframe id="sco" src="/pkg/${runId}/index.html"></iframe></body></html>`
}

export async function startLms(): Promise<LmsServer> {
  const port = await freePort()
  const runs = new Map<string, LmsRun>()
  const committed = new Map<string, Array<Record<string, unknown>>>()
  let counter = 0

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://lms')
    const send = (status: number, type: string, body: string | Buffer) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' })
      res.end(body)
    }
    if (url.pathname === '/scorm-again.js') return send(200, 'text/javascript', SCORM_AGAIN)
    const launch = /^\/course\/([^/]+)$/.exec(url.pathname)
    const launchRun = launch?.[1] ? runs.get(launch[1]) : undefined
    if (launch?.[1] && launchRun) {
      const last = launchRun.resumeFrom ? committed.get(launchRun.resumeFrom)?.at(-1) : undefined
      return send(200, 'text/html; charset=utf-8', launchPage(launch[1], launchRun, last))
    }
    const file = /^\/pkg\/([^/]+)\/(.+)$/.exec(url.pathname)
    const fileRun = file?.[1] ? runs.get(file[1]) : undefined
    const text = file?.[2] ? fileRun?.files.get(file[2]) : undefined
    if (text !== undefined && file?.[2]) {
      const type = file[2].endsWith('.js') ? 'text/javascript' : 'text/html; charset=utf-8'
      return send(200, type, text)
    }
    const commit = /^\/lms\/commit\/([^/]+)$/.exec(url.pathname)
    if (commit?.[1] && req.method === 'POST') {
      const chunks: Buffer[] = []
      for await (const chunk of req) chunks.push(chunk as Buffer)
      const list = committed.get(commit[1]) ?? []
      list.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>)
      committed.set(commit[1], list)
      return send(200, 'application/json', JSON.stringify({ result: true, errorCode: 0 }))
    }
    send(404, 'text/plain', 'not found')
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      res.writeHead(500)
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return {
    origin: (host) => `http://${host}:${port}`,
    add(run) {
      const id = `run${++counter}`
      runs.set(id, run)
      return `/course/${id}`
    },
    commits: (runId) => committed.get(runId) ?? [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
