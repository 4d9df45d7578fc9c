import { readFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import type { TLSSocket } from 'node:tls'

const dir = new URL('../../fixtures/tls/', import.meta.url)
/** The test CA that signed `server.crt`; pass it to the client as `ca`. */
export const TEST_CA = readFileSync(new URL('ca.crt', dir))
const CERT = readFileSync(new URL('server.crt', dir))
const KEY = readFileSync(new URL('server.key', dir))

export interface Hit {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
  /** SNI the client sent (undefined for IP literals). */
  servername: string | false | undefined
  localAddress: string | undefined
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void

export interface Receiver {
  port: number
  /** Whether [::1] is listened on too. */
  ipv6: boolean
  /** Every HTTP request that reached any listener. */
  hits: Hit[]
  /** TLS connections accepted (keep-alive reuse keeps this low). */
  connections: () => number
  close: () => Promise<void>
}

const defaultHandler: Handler = (_req, res, body) => {
  res.setHeader('content-type', 'application/json')
  res.end(JSON.stringify({ received: body.length }))
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port))
  })
}

/**
 * A real HTTPS receiver using the committed test certificate. Listens on 127.0.0.1 and, when the
 * machine has IPv6 loopback, on [::1] with the same port, so loopback spellings of either family
 * would land here if the client let them through.
 */
export async function startReceiver(handler: Handler = defaultHandler): Promise<Receiver> {
  const hits: Hit[] = []
  let connections = 0
  const make = () => {
    const server = createServer({ cert: CERT, key: KEY }, (req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8')
        const socket = req.socket as TLSSocket
        hits.push({
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body,
          servername: (socket as TLSSocket & { servername?: string | false }).servername,
          localAddress: socket.localAddress,
        })
        handler(req, res, body)
      })
    })
    server.on('secureConnection', () => {
      connections += 1
    })
    return server
  }
  const v4 = make()
  const port = await listen(v4, '127.0.0.1', 0)
  const servers = [v4]
  const v6 = make()
  try {
    await listen(v6, '::1', port)
    servers.push(v6)
  } catch {
    // no IPv6 loopback here (or the port is taken on ::1): the IPv4 listener still counts hits
  }
  return {
    port,
    ipv6: servers.length === 2,
    hits,
    connections: () => connections,
    close: async () => {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.closeAllConnections()
              s.close(() => resolve())
            }),
        ),
      )
    },
  }
}
