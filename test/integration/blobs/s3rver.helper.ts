import { mkdtemp, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The part of s3rver (CommonJS, untyped) these tests use. */
interface S3rverInstance {
  run(): Promise<AddressInfo>
  close(): Promise<void>
}
type S3rverConstructor = new (options: {
  address: string
  port: number
  silent: boolean
  directory: string
  configureBuckets: { name: string }[]
}) => S3rverInstance

const require = createRequire(import.meta.url)
const S3rver = require('s3rver') as S3rverConstructor

/**
 * s3rver 3.7 encrypts ListObjectsV2 continuation tokens with single DES, which OpenSSL 3 (Node
 * >= 17) only offers through the legacy provider: every truncated listing (> 1000 keys) answers
 * 500 `ERR_OSSL_EVP_UNSUPPORTED`. The token is opaque and only read back by s3rver itself, so
 * `des` is swapped for two-key 3DES (`des-ede-cbc`: same 8-byte block and IV, key doubled).
 * Scoped to the one algorithm that otherwise cannot run at all; `node --openssl-legacy-provider`
 * would do instead.
 */
function letS3rverMakeContinuationTokens(): void {
  const crypto = require('node:crypto') as typeof import('node:crypto')
  const marker = Symbol.for('courseport.test.s3rverDes')
  const patched = crypto as unknown as Record<symbol, boolean>
  if (patched[marker]) return
  patched[marker] = true
  const { createCipheriv, createDecipheriv } = crypto
  const swap = (algorithm: string, key: Buffer): [string, Buffer] =>
    algorithm === 'des' ? ['des-ede-cbc', Buffer.concat([key, key])] : [algorithm, key]
  crypto.createCipheriv = ((algorithm: string, key: Buffer, iv: Buffer) =>
    createCipheriv(...swap(algorithm, key), iv)) as typeof createCipheriv
  crypto.createDecipheriv = ((algorithm: string, key: Buffer, iv: Buffer) =>
    createDecipheriv(...swap(algorithm, key), iv)) as typeof createDecipheriv
}

export interface RunningS3 {
  endpoint: string
  bucket: string
  /** s3rver accepts any V4 signature made with this pair. */
  credentials: { accessKeyId: string; secretAccessKey: string }
  stop(): Promise<void>
}

/**
 * An in-process s3rver on 127.0.0.1 (random port) storing into a fresh temp directory. Given a
 * `port` and `directory` (an outage test restarting the store), it uses them and `stop` keeps
 * the directory.
 */
export async function startS3rver(
  bucket = 'courseport-test',
  options: { port?: number; directory?: string } = {},
): Promise<RunningS3> {
  letS3rverMakeContinuationTokens()
  const directory = options.directory ?? (await mkdtemp(join(tmpdir(), 'cp-s3rver-')))
  const server = new S3rver({
    address: '127.0.0.1',
    port: options.port ?? 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  })
  const { port } = await server.run()
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    async stop() {
      await server.close()
      if (!options.directory) await rm(directory, { recursive: true, force: true })
    },
  }
}
