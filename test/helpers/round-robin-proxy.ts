import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A small load balancer on 127.0.0.1: each request goes to the next target in turn. A target
 * that refuses the connection (its process is gone) is skipped for that request, as a balancer's
 * passive health check would; nothing was sent to it, so trying the next one is safe for any
 * method. A target that fails after the request was sent answers 502, like a real balancer: the
 * client decides whether to retry. No stickiness: consecutive requests of one client alternate.
 */
export interface RoundRobinProxy {
  url: string
  port: number
  /** Requests answered by each target so far (index as given). */
  served: number[]
  /**
   * Every request that reached a target, in order: which target, and the status it answered —
   * or `failed` (answered 502 here) when the connection broke after the request was sent.
   */
  log: ProxiedRequest[]
  close(): Promise<void>
}

export interface ProxiedRequest {
  target: number
  method: string
  url: string
  status: number | 'failed'
}

export async function startRoundRobinProxy(targets: number[]): Promise<RoundRobinProxy> {
  let next = 0
  const served = targets.map(() => 0)
  const log: ProxiedRequest[] = []
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, tries: number) => {
    const index = next++ % targets.length
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: targets[index],
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        served[index] = (served[index] ?? 0) + 1
        const entry = { target: index, method: req.method ?? '', url: req.url ?? '' }
        log.push({ ...entry, status: answer.statusCode ?? 0 })
        answer.on('aborted', () => log.push({ ...entry, status: 'failed' }))
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
        answer.on('error', () => res.destroy())
      },
    )
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' && tries + 1 < targets.length) {
        forward(req, res, body, tries + 1)
        return
      }
      if (err.code !== 'ECONNREFUSED') {
        log.push({ target: index, method: req.method ?? '', url: req.url ?? '', status: 'failed' })
      }
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { code: 'bad_gateway', message: err.message } }))
      } else {
        res.destroy()
      }
    })
    upstream.end(body)
  }
  const server = createServer((req, res) => {
    // Buffered so a refused connection can be retried on the next target with the same body.
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => forward(req, res, Buffer.concat(chunks), 0))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    served,
    log,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
