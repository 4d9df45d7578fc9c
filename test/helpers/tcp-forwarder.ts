import { connect, createServer, type Server, type Socket } from 'node:net'

/**
 * A TCP forwarder on 127.0.0.1 in front of a real service (PostgreSQL), so a test can make the
 * service unreachable and bring it back without touching it: `stop()` closes the listener and cuts
 * every open connection (clients see ECONNRESET, new ones ECONNREFUSED); `start()` listens again
 * on the same port.
 */
export interface TcpForwarder {
  port: number
  start(): Promise<void>
  stop(): Promise<void>
}

export async function startTcpForwarder(target: { host: string; port: number }) {
  const sockets = new Set<Socket>()
  let server: Server | undefined
  let port = 0
  const listen = async () => {
    server = createServer((client) => {
      const upstream = connect(target.port, target.host)
      for (const socket of [client, upstream]) {
        sockets.add(socket)
        socket.on('close', () => sockets.delete(socket))
        socket.on('error', () => {
          client.destroy()
          upstream.destroy()
        })
      }
      client.pipe(upstream).pipe(client)
    })
    await new Promise<void>((resolve) => server?.listen(port, '127.0.0.1', resolve))
    const address = server.address()
    if (address && typeof address !== 'string') port = address.port
  }
  await listen()
  const forwarder: TcpForwarder = {
    get port() {
      return port
    },
    start: listen,
    async stop() {
      const closing = new Promise((resolve) => server?.close(resolve))
      for (const socket of sockets) socket.destroy()
      await closing
    },
  }
  return forwarder
}
