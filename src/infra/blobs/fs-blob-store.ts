import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { constants as fsConstants, writeFile } from 'node:fs'
import {
  access,
  copyFile,
  type FileHandle,
  mkdir,
  open,
  rename,
  rm,
  rmdir,
  stat,
  unlink,
} from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { promisify } from 'node:util'
import { AppError } from '../../shared/app-error.ts'
import { type Clock, systemClock } from '../../shared/clock.ts'
import type { BlobMeta, BlobObject, BlobStore, PutOptions, UploadUrl } from './blob-store.ts'
import { assertValidRange, clampRange } from './byte-range.ts'
import { collision, errnoCode, isMissing, metaOf, readdirOrEmpty, walk } from './fs-files.ts'
import { lengthGuard } from './length-guard.ts'
import { assertSafeKey, resolveSafePath, splitSafePrefix, TEMP_PREFIX } from './safe-path.ts'
import { assertValidUploadRequest, type UploadRequest } from './upload-request.ts'
import { signUploadToken } from './upload-token.ts'

export interface FsBlobStoreOptions {
  /** Directory holding the objects (DATA_DIR/blobs in the default setup); created when needed. */
  root: string
  /** Origin (and optional path) of the service; upload URLs are `${publicUrl}/uploads/${token}`. */
  publicUrl: string
  /** HMAC key of upload tokens, at least 16 bytes; the `/uploads` route verifies with it. */
  uploadSecret: string | Buffer
  /** Default: the system clock. */
  clock?: Clock
  /** fsync each file before renaming it into place, so a crash cannot leave an empty object. Default true. */
  fsync?: boolean
}

const OPEN_ATTEMPTS = 3

/**
 * Read chunk for streaming a body: large media goes out in 1 MiB reads (a sixteenth of the
 * system calls and stream turns of the 64 KiB default), small files in one read.
 */
function readChunk(bytes: number): number {
  return Math.min(1024 * 1024, Math.max(64 * 1024, bytes))
}
const execFileAsync = promisify(execFile)
const ignoreEarlyError = () => {}
const writeFileCallback = promisify(writeFile)

/** Blobs as plain files under one root directory; keys map to relative paths. */
export class FsBlobStore implements BlobStore {
  readonly kind = 'fs' as const
  readonly root: string
  readonly #publicUrl: string
  readonly #secret: string | Buffer
  readonly #clock: Clock
  readonly #fsync: boolean
  #rootReady: Promise<unknown> | null = null
  /**
   * Parent directories already resolved and checked for writes (key folder → real path), so
   * storing thousands of files in a few folders does not re-walk the path each time. Writes
   * rename over the entry itself, so only the parent needs checking; any delete clears this.
   */
  readonly #writableDirs = new Map<string, string>()
  /** Temp names: a random per-store prefix and a counter (unique without a random draw per file). */
  readonly #tempPrefix = randomBytes(6).toString('base64url')
  #tempCounter = 0

  #tempName(): string {
    this.#tempCounter += 1
    return `${this.#tempPrefix}-${process.pid}-${this.#tempCounter}`
  }

  constructor(options: FsBlobStoreOptions) {
    this.root = options.root
    this.#publicUrl = options.publicUrl.replace(/\/+$/, '')
    this.#secret = options.uploadSecret
    this.#clock = options.clock ?? systemClock
    this.#fsync = options.fsync ?? true
  }

  #ensureRoot(): Promise<unknown> {
    this.#rootReady ??= mkdir(this.root, { recursive: true }).catch((err: unknown) => {
      this.#rootReady = null
      throw err
    })
    return this.#rootReady
  }

  async #writeTarget(key: string, refresh: boolean): Promise<string> {
    const slash = key.lastIndexOf('/')
    const folder = slash < 0 ? '' : key.slice(0, slash)
    const cached = refresh ? undefined : this.#writableDirs.get(folder)
    if (cached !== undefined) return join(cached, key.slice(slash + 1))
    const target = await resolveSafePath(this.root, key, { createParents: true })
    if (this.#writableDirs.size >= 10_000) this.#writableDirs.clear()
    this.#writableDirs.set(folder, dirname(target))
    return target
  }

  /** The resolved path of a key or prefix directory ('' = root); null when it cannot exist. */
  async #existingPath(key: string, entry = false): Promise<string | null> {
    await this.#ensureRoot()
    try {
      return await resolveSafePath(this.root, key, { entry })
    } catch (err) {
      if (isMissing(err)) return null
      throw err
    }
  }

  /**
   * One `syncfs` of the store's filesystem (coreutils `sync -f`): after a batch of deferred
   * puts this costs one flush instead of one fsync per file, and also makes the renames durable.
   */
  async flush(): Promise<void> {
    if (!this.#fsync) return
    await this.#ensureRoot()
    await execFileAsync('sync', ['-f', this.root])
  }

  async putFile(key: string, path: string, options: PutOptions = {}): Promise<{ size: number }> {
    assertSafeKey(key)
    await this.#ensureRoot()
    const target = await this.#writeTarget(key, false)
    const temp = join(dirname(target), `${TEMP_PREFIX}${this.#tempName()}`)
    try {
      await copyFile(path, temp, fsConstants.COPYFILE_EXCL)
      if (this.#fsync && !options.deferSync) {
        const handle = await open(temp, 'r+')
        await handle.sync().finally(() => handle.close())
      }
      const { size } = await stat(temp)
      await rename(temp, target)
      return { size }
    } catch (err) {
      await rm(temp, { force: true })
      throw collision(key, err) ?? err
    }
  }

  /**
   * Small bodies go through the callback `writeFile` (open, write, optional fsync, close on plain
   * descriptors): a FileHandle per file costs several times more, which shows when a package
   * stores thousands of files.
   */
  async #putBuffer(key: string, body: Buffer, options: PutOptions): Promise<{ size: number }> {
    const durable = this.#fsync && !options.deferSync
    for (let attempt = 1; ; attempt++) {
      let target = ''
      let temp = ''
      try {
        target = await this.#writeTarget(key, attempt > 1)
        if (options.inPlace) {
          await writeFileCallback(target, body, { flag: 'w', mode: 0o644, flush: durable })
          return { size: body.length }
        }
        temp = join(dirname(target), `${TEMP_PREFIX}${this.#tempName()}`)
        await writeFileCallback(temp, body, { flag: 'wx', mode: 0o644, flush: durable })
      } catch (err) {
        if (temp) await rm(temp, { force: true }).catch(() => {})
        if (errnoCode(err) === 'ENOENT' && attempt < OPEN_ATTEMPTS) continue
        throw collision(key, err) ?? err
      }
      try {
        await rename(temp, target)
        return { size: body.length }
      } catch (err) {
        await rm(temp, { force: true })
        throw collision(key, err) ?? err
      }
    }
  }

  async put(
    key: string,
    body: Readable | Buffer,
    options: PutOptions = {},
  ): Promise<{ size: number }> {
    assertSafeKey(key)
    const expected = options.contentLength
    if (Buffer.isBuffer(body) && expected !== undefined && body.length !== expected) {
      throw new AppError('invalid_request', `Body is ${body.length} bytes, declared ${expected}`)
    }
    if (!Buffer.isBuffer(body)) {
      // The temp file opens before pipeline() listens: an error the body emits meanwhile (a
      // read stream's ENOENT, a client hanging up) would be uncaught. pipeline() still reports
      // it, since the stream is left errored.
      body.on('error', ignoreEarlyError)
    }
    await this.#ensureRoot()
    if (Buffer.isBuffer(body)) return this.#putBuffer(key, body, options)
    let handle: FileHandle | undefined
    let temp = ''
    let target = ''
    // A concurrent deletePrefix may remove the freshly made parent before the temp file opens.
    for (let attempt = 1; !handle; attempt++) {
      try {
        target = await this.#writeTarget(key, attempt > 1)
        temp = join(dirname(target), `${TEMP_PREFIX}${this.#tempName()}`)
        handle = await open(temp, 'wx', 0o644)
      } catch (err) {
        if (errnoCode(err) === 'ENOENT' && attempt < OPEN_ATTEMPTS) continue
        throw collision(key, err) ?? err
      }
    }
    try {
      const guard = lengthGuard({ expected })
      // The stream owns the handle from here: it fsyncs (flush) and closes it, also on error.
      const sink = handle.createWriteStream({ flush: this.#fsync && !options.deferSync })
      handle = undefined
      await pipeline(body, guard, sink)
      await rename(temp, target)
      return { size: guard.bytes }
    } catch (err) {
      await handle?.close().catch(() => {})
      await rm(temp, { force: true })
      throw collision(key, err) ?? err
    }
  }

  async get(key: string, range?: { start: number; end?: number }): Promise<BlobObject | null> {
    assertSafeKey(key)
    if (range !== undefined) assertValidRange(range)
    const path = await this.#existingPath(key)
    if (path === null) return null
    let handle: FileHandle
    try {
      handle = await open(path, 'r')
    } catch (err) {
      if (isMissing(err) || errnoCode(err) === 'EISDIR') return null
      throw err
    }
    try {
      // Metadata from the open descriptor, so the ETag describes exactly the bytes streamed even
      // if the key is replaced meanwhile.
      const stats = await handle.stat({ bigint: true })
      if (!stats.isFile()) {
        await handle.close()
        return null
      }
      const meta = metaOf(key, stats)
      if (!range)
        return { ...meta, body: handle.createReadStream({ highWaterMark: readChunk(meta.size) }) }
      const served = clampRange(range, meta.size)
      if (!served) {
        await handle.close()
        return { ...meta, body: Readable.from([]), unsatisfiable: true }
      }
      return {
        ...meta,
        body: handle.createReadStream({
          ...served,
          highWaterMark: readChunk(served.end - served.start + 1),
        }),
        range: served,
      }
    } catch (err) {
      await handle.close().catch(() => {})
      throw err
    }
  }

  async head(key: string): Promise<BlobMeta | null> {
    assertSafeKey(key)
    const path = await this.#existingPath(key)
    if (path === null) return null
    try {
      const stats = await stat(path, { bigint: true })
      return stats.isFile() ? metaOf(key, stats) : null
    } catch (err) {
      if (isMissing(err)) return null
      throw err
    }
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key)
    this.#writableDirs.clear()
    const path = await this.#existingPath(key, true)
    if (path === null) return
    try {
      await unlink(path)
    } catch (err) {
      // A directory is not an object: deleting a key that only prefixes others does nothing.
      const code = errnoCode(err)
      if (!isMissing(err) && code !== 'EISDIR' && code !== 'EPERM') throw err
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    if (prefix === '') throw new AppError('invalid_request', 'Refusing to delete every blob')
    this.#writableDirs.clear()
    const { dir, namePrefix } = splitSafePrefix(prefix)
    const dirPath = await this.#existingPath(dir)
    if (dirPath === null) return
    // Names first, then removal: a directory is not changed while it is being read.
    for (const { name } of await readdirOrEmpty(dirPath)) {
      if (name.startsWith(TEMP_PREFIX) || !name.startsWith(namePrefix)) continue
      // rm does not follow symlinks, so a link inside the prefix is removed, not its target.
      await rm(join(dirPath, name), { recursive: true, force: true })
    }
    if (namePrefix === '' && dir !== '') await rmdir(dirPath).catch(() => {})
  }

  async *list(prefix: string): AsyncIterable<string> {
    const { dir, namePrefix } = splitSafePrefix(prefix)
    const dirPath = await this.#existingPath(dir)
    if (dirPath === null) return
    yield* walk(dirPath, dir === '' ? '' : `${dir}/`, namePrefix)
  }

  /**
   * The root exists (it is created when missing) and this process may write into it; a missing
   * mount or a read-only filesystem answers `storage_unavailable`.
   */
  async checkHealth(): Promise<void> {
    try {
      await this.#ensureRoot()
      await access(this.root, fsConstants.W_OK)
    } catch (err) {
      const unavailable = new AppError(
        'storage_unavailable',
        `The blob directory cannot be written (${errnoCode(err) ?? 'error'})`,
      )
      unavailable.cause = err
      throw unavailable
    }
  }

  async createUploadUrl(key: string, options: UploadRequest): Promise<UploadUrl> {
    assertSafeKey(key)
    assertValidUploadRequest(options)
    const expiresAt = new Date(this.#clock.now().getTime() + options.expiresInSeconds * 1000)
    const token = signUploadToken(this.#secret, {
      key,
      expiresAt,
      ...(options.contentType !== undefined && { contentType: options.contentType }),
      ...(options.contentLength !== undefined && { contentLength: options.contentLength }),
    })
    const headers: Record<string, string> = {}
    if (options.contentType !== undefined) headers['Content-Type'] = options.contentType
    if (options.contentLength !== undefined) {
      headers['Content-Length'] = String(options.contentLength)
    }
    return { url: `${this.#publicUrl}/uploads/${token}`, headers, expiresAt }
  }
}
