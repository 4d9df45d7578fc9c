import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify from 'fastify'
import yauzl from 'yauzl'
import { buildContentApp } from '../../../src/app.ts'
import { contentRoutes } from '../../../src/http/content/content.routes.ts'
import type { SmallFileCache } from '../../../src/http/content/small-file.cache.ts'
import { registerErrorHandling } from '../../../src/http/plugins/error-handler.ts'
import type { BlobStore } from '../../../src/infra/blobs/blob-store.ts'
import { signToken, type TokenPurpose } from '../../../src/shared/signed-token.ts'
import type { TestApp, TestTenant } from '../../helpers/app.ts'

export interface StoredVersion {
  versionId: string
  /** `package_versions.blob_prefix`, what a content token's `p` claim names. */
  prefix: string
}

/** Uploads a zip through the real ingest (`createFromZip`) and returns its version's folder. */
export async function ingest(t: TestApp, tenant: TestTenant, zip: Buffer): Promise<StoredVersion> {
  const dir = await mkdtemp(join(tmpdir(), 'cp-content-zip-'))
  try {
    const zipPath = join(dir, 'course.zip')
    await writeFile(zipPath, zip)
    const detail = await t.ctx.services.packages.createFromZip(
      { tenantId: tenant.tenantId, mode: 'test' },
      { zipPath, filename: 'course.zip', uploadedBy: null },
    )
    const versionId = detail.versions[0]?.id
    if (!versionId) throw new Error('no version created')
    const row = await t.ctx.db.kysely
      .selectFrom('package_versions')
      .select('blob_prefix')
      .where('id', '=', versionId)
      .executeTakeFirstOrThrow()
    return { versionId, prefix: row.blob_prefix }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** A token as the runtime's `start` makes it; `ttlSeconds` from the app's clock. */
export function contentToken(
  t: TestApp,
  prefix: string,
  options: { ttlSeconds?: number; purpose?: TokenPurpose; secret?: string } = {},
): string {
  const expiresAt = new Date(t.ctx.clock.now().getTime() + (options.ttlSeconds ?? 3600) * 1000)
  return signToken(
    options.secret ?? t.ctx.config.secretKey,
    options.purpose ?? 'content',
    { p: prefix, sid: 'ses_test' },
    expiresAt,
  )
}

/** Every file entry of a zip, by name (directories left out). */
export function zipEntries(zip: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (err, file) => {
      if (err || !file) return reject(err)
      const entries = new Map<string, Buffer>()
      file.on('error', reject)
      file.on('end', () => resolve(entries))
      file.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith('/')) return file.readEntry()
        file.openReadStream(entry, (streamErr, stream) => {
          if (streamErr || !stream) return reject(streamErr)
          const chunks: Buffer[] = []
          stream.on('data', (chunk: Buffer) => chunks.push(chunk))
          stream.on('error', reject)
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks))
            file.readEntry()
          })
        })
      })
      file.readEntry()
    })
  })
}

export interface StoreCall {
  method: 'get' | 'head' | 'list'
  key: string
}

/**
 * The real store, with every read recorded: lets a test prove a request was refused before
 * storage was touched, or never read outside its prefix.
 */
export function recordingStore(store: BlobStore): { store: BlobStore; calls: StoreCall[] } {
  const calls: StoreCall[] = []
  const recorded = new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target)
      if (typeof value !== 'function') return value
      if (property === 'get' || property === 'head' || property === 'list') {
        return (key: string, ...rest: unknown[]) => {
          calls.push({ method: property, key })
          return value.apply(target, [key, ...rest])
        }
      }
      return value.bind(target)
    },
  })
  return { store: recorded, calls }
}

/**
 * A second content app on the same context whose store reads are recorded: the real one, or
 * only the content routes with the given cache.
 */
export async function recordedContentApp(
  t: TestApp,
  cache?: SmallFileCache,
  mediaBlocks?: SmallFileCache,
) {
  const { store, calls } = recordingStore(t.ctx.blobs)
  const ctx = { ...t.ctx, blobs: store }
  if (!cache) return { app: await buildContentApp(ctx), calls }
  const app = Fastify({ routerOptions: { maxParamLength: 2048 } })
  registerErrorHandling(app)
  await app.register(contentRoutes, { ctx, cache, ...(mediaBlocks && { mediaBlocks }) })
  return { app, calls }
}

/**
 * The content routes with the small-file cache off, so every request goes through the blob
 * store's streaming path (the default app serves repeated small files from memory).
 */
export async function uncachedContentApp(t: TestApp) {
  const app = Fastify({ routerOptions: { maxParamLength: 2048 } })
  registerErrorHandling(app)
  await app.register(contentRoutes, { ctx: t.ctx, cache: false })
  return app
}

export interface RawResponse {
  status: number
  headers: Record<string, string>
  body: Buffer
}

/**
 * One HTTP/1.1 request written byte for byte: `fetch` and `inject` normalise URLs (`..`,
 * `%2e%2e`, `\`) before sending, which would hide what a hostile client can really send.
 */
export function rawRequest(
  port: number,
  target: string,
  options: { method?: string; headers?: Record<string, string>; host?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    const extra = Object.entries(options.headers ?? {})
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')
    socket.on('connect', () => {
      socket.write(
        `${options.method ?? 'GET'} ${target} HTTP/1.1\r\nHost: ${options.host ?? '127.0.0.1'}\r\n${extra}Connection: close\r\n\r\n`,
        'latin1',
      )
    })
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('end', () => {
      const all = Buffer.concat(chunks)
      const split = all.indexOf('\r\n\r\n')
      const head = all.subarray(0, split).toString('latin1').split('\r\n')
      const status = Number(head[0]?.split(' ')[1])
      const headers: Record<string, string> = {}
      for (const line of head.slice(1)) {
        const colon = line.indexOf(':')
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
      }
      resolve({ status, headers, body: all.subarray(split + 4) })
    })
  })
}
