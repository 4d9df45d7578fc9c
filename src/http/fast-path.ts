import type { IncomingMessage, Server, ServerResponse } from 'node:http'

/**
 * A path that answers some requests without the framework (content-fast-path.ts,
 * runtime/commit-fast-path.ts). `serve` decides synchronously: it either takes the request
 * (answers it, now or later) and returns true, or returns false without touching it.
 */
export interface FastPath {
  serve(req: IncomingMessage, res: ServerResponse): boolean
}

/**
 * Puts `fast` in front of the server's request handler (Fastify's): what it takes never
 * reaches Fastify. Only real connections pass here; `inject` (tests) always reaches Fastify.
 * Installed twice on one server, the last installed is asked first.
 */
export function installFastPath(server: Server, fast: FastPath): void {
  const handlers = server.listeners('request') as Array<
    (req: IncomingMessage, res: ServerResponse) => void
  >
  // No handler yet (a server made elsewhere): nothing to put the fast path in front of.
  if (handlers.length === 0) return
  server.removeAllListeners('request')
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (fast.serve(req, res)) return
    for (const handler of handlers) handler(req, res)
  })
}
