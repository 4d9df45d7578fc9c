import { Transform, type TransformCallback } from 'node:stream'
import { AppError } from '../../shared/app-error.ts'

/**
 * Passes bytes through and fails the stream, before any excess byte goes out or at the end if
 * bytes are missing, unless exactly `expected` bytes (or, without `expected`, at most `max`)
 * went through. A failed stream makes the backend abandon the write.
 */
export function lengthGuard(limits: { expected?: number; max?: number }): Transform & {
  readonly bytes: number
} {
  let bytes = 0
  const cap = limits.expected ?? limits.max ?? Number.POSITIVE_INFINITY
  const guard = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      bytes += chunk.length
      if (bytes > cap) {
        callback(
          limits.expected !== undefined
            ? new AppError('invalid_request', `Body is longer than the declared ${cap} bytes`, {
                expected: cap,
              })
            : new AppError('payload_too_large', `Body is larger than ${cap} bytes`, { max: cap }),
        )
        return
      }
      callback(null, chunk)
    },
    flush(callback: TransformCallback) {
      if (limits.expected !== undefined && bytes !== limits.expected) {
        callback(
          new AppError('invalid_request', `Body is ${bytes} bytes, declared ${limits.expected}`, {
            expected: limits.expected,
            received: bytes,
          }),
        )
        return
      }
      callback()
    },
  })
  return Object.defineProperty(guard, 'bytes', { get: () => bytes }) as Transform & {
    readonly bytes: number
  }
}
