import type { Dispatcher } from 'undici'
import { HttpEgressError } from './egress.error.ts'

function tooLarge(host: string, maxBytes: number) {
  return new HttpEgressError(
    'too_large',
    `Response from ${host} is larger than ${maxBytes} bytes`,
    {
      host,
    },
  )
}

/** Drops a body we will not read; undici reports that as an error nobody needs to hear. */
export function discardBody(res: Dispatcher.ResponseData): void {
  res.body.on('error', () => {})
  res.body.destroy()
}

/**
 * Reads at most `maxBytes` of the body. Past the cap the stream is destroyed (the socket is not
 * reused) so a hostile server cannot make us download, or buffer, more than asked.
 */
export async function readCapped(
  res: Dispatcher.ResponseData,
  maxBytes: number,
  onOversize: 'error' | 'truncate',
  host: string,
): Promise<{ body: Buffer; truncated: boolean }> {
  const declared = Number(res.headers['content-length'])
  if (onOversize === 'error' && Number.isFinite(declared) && declared > maxBytes) {
    discardBody(res)
    throw tooLarge(host, maxBytes)
  }
  const chunks: Buffer[] = []
  let size = 0
  let truncated = false
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    if (size + chunk.length > maxBytes) {
      if (onOversize === 'error') throw tooLarge(host, maxBytes) // leaving the loop destroys
      chunks.push(chunk.subarray(0, maxBytes - size))
      size = maxBytes
      truncated = true
      break
    }
    chunks.push(chunk)
    size += chunk.length
  }
  return { body: Buffer.concat(chunks, size), truncated }
}
