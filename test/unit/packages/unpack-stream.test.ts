import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdir, readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { after, before, describe, test } from 'node:test'
import yazl from 'yazl'
import {
  DEFAULT_UNPACK_LIMITS,
  formatBytes,
  listZipEntries,
  readZipEntryText,
  resolveUnpackLimits,
  unpackZip,
} from '../../../src/modules/packages/unpack/index.ts'
import { isAppError } from '../../../src/shared/app-error.ts'
import { buildZip, scratchDir } from '../../helpers/zip-builder.ts'

let scratch: Awaited<ReturnType<typeof scratchDir>>
before(async () => {
  scratch = await scratchDir()
})
after(async () => {
  await scratch.cleanup()
})

/** Writes a zip with yazl, the way a normal tool would (folders, deflate, data descriptors). */
async function yazlZip(
  name: string,
  files: Record<string, Buffer | string | null>,
): Promise<string> {
  const zip = new yazl.ZipFile()
  for (const [path, content] of Object.entries(files)) {
    if (content === null) zip.addEmptyDirectory(path)
    else zip.addBuffer(typeof content === 'string' ? Buffer.from(content) : content, path)
  }
  zip.end()
  const out = join(scratch.dir, name)
  await pipeline(zip.outputStream as Readable, createWriteStream(out))
  return out
}

describe('unpackZip stores a normal package', () => {
  test('every file reaches the writer with its content; folders are skipped', async () => {
    const big = randomBytes(300_000)
    const zipPath = await yazlZip('normal.zip', {
      'imsmanifest.xml': '<manifest/>',
      'shared/': null,
      'shared/page.html': '<p>hi</p>',
      'shared/empty.txt': '',
      'media/big.bin': big,
    })
    const target = join(scratch.dir, 'out-normal')
    const sizes: Record<string, number> = {}
    const summary = await unpackZip(zipPath, {}, async (path, stream, size) => {
      sizes[path] = size
      const dest = join(target, path)
      await mkdir(dirname(dest), { recursive: true })
      await pipeline(stream, createWriteStream(dest))
    })
    assert.deepEqual(summary.files, [
      'imsmanifest.xml',
      'shared/page.html',
      'shared/empty.txt',
      'media/big.bin',
    ])
    assert.equal(summary.fileCount, 4)
    assert.equal(summary.skippedDirectories, 1)
    assert.equal(summary.totalBytes, 11 + 9 + 0 + big.length)
    assert.equal(sizes['media/big.bin'], big.length)
    assert.deepEqual(await readFile(join(target, 'media/big.bin')), big)
    assert.equal(await readFile(join(target, 'shared/empty.txt'), 'utf8'), '')
  })

  test('backslash separators from old Windows tools become folders', async () => {
    const path = await scratch.zip('backslash.zip', [
      { name: 'shared\\page.html', data: 'x' },
      { name: './index.html', data: 'y' },
    ])
    const summary = await unpackZip(path, {}, async (_p, s) => {
      s.resume()
      await new Promise((r) => s.on('end', r))
    })
    assert.deepEqual(summary.files, ['shared/page.html', 'index.html'])
  })

  test('UTF-8 and CP437 file names are decoded', async () => {
    const cp437 = Buffer.from([0x63, 0x61, 0x66, 0x82, 0x2e, 0x68, 0x74, 0x6d]) // "café.htm" in CP437
    const path = await scratch.zip('names.zip', [
      { name: 'leçon/été.html', data: 'x' },
      { name: cp437, data: 'y' },
    ])
    const listing = await listZipEntries(path)
    assert.deepEqual(
      listing.entries.map((e) => e.path),
      ['leçon/été.html', 'café.htm'],
    )
  })
})

describe('unpackZip streams', () => {
  test('entries are handed over one at a time, in chunks, never as one buffer', async () => {
    const data = randomBytes(20 * 1024 * 1024)
    const path = await scratch.zip('large.zip', [
      { name: 'a.bin', data, method: 0 },
      { name: 'b.bin', data: data.subarray(0, 1024 * 1024), method: 8 },
    ])
    let active = 0
    let maxActive = 0
    let maxChunk = 0
    let chunks = 0
    await unpackZip(path, {}, async (_p, stream) => {
      active++
      maxActive = Math.max(maxActive, active)
      for await (const chunk of stream) {
        chunks++
        maxChunk = Math.max(maxChunk, (chunk as Buffer).length)
      }
      active--
    })
    assert.equal(maxActive, 1)
    assert.ok(chunks > 100, `only ${chunks} chunks`)
    assert.ok(maxChunk <= 1024 * 1024, `a chunk of ${maxChunk} bytes`)
  })

  test("a writer's own failure passes through unchanged", async () => {
    const path = await scratch.zip('fail.zip', [{ name: 'a.html', data: 'x' }])
    const boom = new Error('disk full')
    await assert.rejects(
      unpackZip(path, {}, async (_p, stream) => {
        stream.destroy()
        throw boom
      }),
      (err) => err === boom,
    )
  })

  test('a writer that resolves without reading the stream is a programming error', async () => {
    const path = await scratch.zip('lazy.zip', [{ name: 'a.html', data: 'x'.repeat(100_000) }])
    await assert.rejects(
      unpackZip(path, {}, async () => {}),
      (err: unknown) => !isAppError(err) && /before reading the whole entry/.test(String(err)),
    )
  })
})

describe('reading single entries', () => {
  test('readZipEntryText returns the text of one file, or null', async () => {
    const path = await scratch.zip('read.zip', [
      { name: 'a.html', data: 'A' },
      {
        name: 'imsmanifest.xml',
        data: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<manifest/>')]),
      },
    ])
    assert.equal(await readZipEntryText(path, 'imsmanifest.xml'), '<manifest/>')
    assert.equal(await readZipEntryText(path, 'missing.xml'), null)
  })

  test('a manifest larger than maxBytes is refused without reading it', async () => {
    const path = await scratch.zip('hugemanifest.zip', [
      { name: 'imsmanifest.xml', data: 'x'.repeat(5000) },
    ])
    await assert.rejects(
      readZipEntryText(path, 'imsmanifest.xml', { maxBytes: 1000 }),
      (err: unknown) => {
        return (
          isAppError(err) &&
          err.code === 'payload_too_large' &&
          /too large to be read as a manifest/.test(err.message)
        )
      },
    )
  })

  test('listZipEntries applies every name check without reading data', async () => {
    const path = await scratch.write(
      'slip.zip',
      buildZip([
        { name: 'ok.html', data: 'x' },
        { name: '../x', data: 'y' },
      ]),
    )
    await assert.rejects(
      listZipEntries(path),
      (err: unknown) => isAppError(err) && err.code === 'invalid_package',
    )
  })
})

describe('limits', () => {
  test('defaults are documented values and overridable', () => {
    assert.equal(DEFAULT_UNPACK_LIMITS.maxEntries, 10_000)
    assert.equal(DEFAULT_UNPACK_LIMITS.maxTotalBytes, 2 * 1024 ** 3)
    assert.equal(DEFAULT_UNPACK_LIMITS.maxEntryRatio, 100)
    const limits = resolveUnpackLimits({ maxEntries: 5 })
    assert.equal(limits.maxEntries, 5)
    assert.equal(limits.maxFileBytes, DEFAULT_UNPACK_LIMITS.maxFileBytes)
    assert.throws(() => resolveUnpackLimits({ maxEntries: -1 }), TypeError)
    // A config object passed through unmapped must not be silently ignored.
    const config = { maxEntries: 10, maxRatio: 50 } as Partial<typeof DEFAULT_UNPACK_LIMITS>
    assert.throws(() => resolveUnpackLimits(config), /unknown unpack limit maxRatio/)
  })

  test('a lower entry limit from config is applied', async () => {
    const path = await scratch.zip(
      'six.zip',
      Array.from({ length: 6 }, (_, i) => ({ name: `${i}.txt`, data: 'x' })),
    )
    await assert.rejects(
      unpackZip(path, { maxEntries: 5 }, async () => {}),
      (err: unknown) => {
        return (
          isAppError(err) &&
          err.code === 'payload_too_large' &&
          /6 files and folders; the limit is 5/.test(err.message)
        )
      },
    )
  })

  test('sizes read like a file manager shows them', () => {
    assert.equal(formatBytes(512), '512 bytes')
    assert.equal(formatBytes(1536), '1.5 KB')
    assert.equal(formatBytes(2 * 1024 ** 3), '2 GB')
  })
})
