import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'

/** How long a closing connection may keep sending before it is cut off (2 s). */
export const LINGER_MS = 2000

/**
 * Closes a connection the way nginx's lingering close does: our side is shut (FIN, after the
 * answer), and what the client still sends is read and dropped until it stops or `LINGER_MS`
 * passes. Closing at once with unread bytes in the socket would make the kernel reset the
 * connection, and a client still writing its body (a 2 MiB JSON answered 413 before it was read)
 * then sees `EPIPE`/`ECONNRESET` instead of the answer already on its way.
 */
export function lingerThenClose(socket: Socket, data?: string): void {
  if (data === undefined) socket.end()
  else socket.end(data)
  socket.resume()
  const linger = setTimeout(() => socket.destroy(), LINGER_MS)
  linger.unref()
  socket.once('close', () => clearTimeout(linger))
  socket.once('end', () => socket.destroy())
}

/**
 * Answers sent before the request body was read (Fastify answers a body that is too large or
 * unparsable with `Connection: close` at once) close the connection with `lingerThenClose`
 * instead of Node's immediate `destroySoon`, so the client reads the error body instead of a
 * reset. Keep-alive answers are untouched: Node already reads and drops an unread body there.
 */
export function registerLingeringClose(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply) => {
    if (request.raw.complete) return
    if (String(reply.getHeader('connection') ?? '').toLowerCase() !== 'close') return
    const socket = request.raw.socket
    // destroySoon is what Node's server calls once an answer marked `Connection: close` is
    // written; replacing it on this one socket is the narrowest place to change how it closes.
    socket.destroySoon = () => lingerThenClose(socket)
  })
}
