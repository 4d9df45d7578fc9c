/**
 * The HTTPS receiver of bench/webhooks.bench.ts, in its own process so it has its own core:
 * answers every POST 200 at once, with the test certificate (tests' CA). Prints its port; on any
 * IPC message answers with the number of TLS connections and requests it accepted.
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'

const dir = new URL('../test/fixtures/tls/', import.meta.url)
let connections = 0
let requests = 0
const server = createServer(
  { cert: readFileSync(new URL('server.crt', dir)), key: readFileSync(new URL('server.key', dir)) },
  (req, res) => {
    req.resume()
    req.on('end', () => {
      requests += 1
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"ok":true}')
    })
  },
)
server.keepAliveTimeout = 30_000
server.on('secureConnection', () => {
  connections += 1
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`)
})
process.on('message', () => process.send?.({ connections, requests }))
process.on('disconnect', () => process.exit(0))
