import { connect } from 'node:net'

/**
 * Sends raw bytes on a fresh connection and resolves with everything the server answered until
 * it closed the connection (send `Connection: close`, or `hangUp` to close after writing).
 */
export function rawRequest(port: number, bytes: Buffer | string, hangUp = false): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port })
    const chunks: Buffer[] = []
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')))
    socket.write(bytes, () => {
      if (hangUp) socket.destroy()
    })
  })
}

export interface RawAnswer {
  status: number
  headers: Record<string, string>
  body: string
}

/** Splits a raw HTTP/1.1 answer (not chunked) into status, lower-cased headers and body. */
export function parseAnswer(answer: string): RawAnswer {
  const end = answer.indexOf('\r\n\r\n')
  const [statusLine = '', ...lines] = answer.slice(0, end).split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1]),
    headers,
    body: answer.slice(end + 4),
  }
}
