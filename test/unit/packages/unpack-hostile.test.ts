import assert from 'node:assert/strict'
import { type Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { after, before, describe, test } from 'node:test'
import { unpackZip } from '../../../src/modules/packages/unpack/index.ts'
import { isAppError } from '../../../src/shared/app-error.ts'
import { buildZip, scratchDir, type ZipEntrySpec } from '../../helpers/zip-builder.ts'

let scratch: Awaited<ReturnType<typeof scratchDir>>
before(async () => {
  scratch = await scratchDir()
})
after(async () => {
  await scratch.cleanup()
})

async function drain(stream: Readable): Promise<number> {
  let n = 0
  for await (const chunk of stream) n += (chunk as Buffer).length
  return n
}

/** Unpacks the zip, recording what reached the writer; resolves to the error thrown (or null). */
async function tryUnpack(entries: ZipEntrySpec[], limits = {}) {
  const path = await scratch.write(
    `z-${Math.random().toString(36).slice(2)}.zip`,
    buildZip(entries),
  )
  const written: string[] = []
  let error: unknown = null
  try {
    await unpackZip(path, limits, async (p, stream) => {
      await drain(stream)
      written.push(p)
    })
  } catch (err) {
    error = err
  }
  return { error, written }
}

function assertRefused(error: unknown, code: string, pattern: RegExp): void {
  assert.ok(isAppError(error), `expected an AppError, got ${String(error)}`)
  assert.equal(error.code, code)
  assert.match(error.message, pattern)
}

const ok: ZipEntrySpec = { name: 'index.html', data: '<html></html>' }

describe('unpackZip refuses hostile names', () => {
  const cases: [string, RegExp][] = [
    ['../evil.html', /outside the package.*zip slip/],
    ['a/../../evil.html', /outside the package/],
    ['..\\evil.html', /outside the package/],
    ['sub\\..\\..\\evil', /outside the package/],
    ['/abs/evil.html', /absolute path/],
    ['\\abs\\evil.html', /absolute path/],
    ['C:/x/evil.html', /drive letter/],
    ['c:evil.html', /drive letter/],
    ['a\u0000b.html', /NUL character/],
    ['a\u0007b.html', /control character/],
  ]
  for (const [name, pattern] of cases) {
    test(`refuses '${JSON.stringify(name)}' and writes nothing after it`, async () => {
      const { error, written } = await tryUnpack([{ name, data: 'x' }, ok])
      assertRefused(error, 'invalid_package', pattern)
      assert.deepEqual(written, [])
    })
  }

  test('refuses a name whose raw bytes hold a NUL', async () => {
    const name = Buffer.from([0x61, 0x00, 0x2e, 0x68, 0x74, 0x6d])
    const { error } = await tryUnpack([{ name, data: 'x' }])
    assertRefused(error, 'invalid_package', /NUL/)
  })

  test('refuses over-long paths', async () => {
    const { error } = await tryUnpack([{ name: `${'a'.repeat(600)}.html`, data: 'x' }])
    assertRefused(error, 'invalid_package', /longer than 512 bytes/)
  })

  // Names the blob store cannot hold are refused here, in validation, naming the entry, before
  // anything is written (they used to fail while storing, with an internal storage key).
  test('refuses a file or folder name over 255 bytes, though the path is under 512', async () => {
    const long = `${'é'.repeat(128)}.html` // 256 UTF-8 bytes in 133 characters
    for (const name of [`sco/${long}`, `${'d'.repeat(256)}/index.html`]) {
      const { error, written } = await tryUnpack([{ name, data: 'x' }, ok])
      assertRefused(error, 'invalid_package', /file or folder name longer than 255 bytes/)
      assert.ok((error as Error).message.includes(name.slice(0, 20)), 'the entry is named')
      assert.doesNotMatch((error as Error).message, /blob|packages\//i)
      assert.deepEqual(written, [])
    }
    const { error } = await tryUnpack([{ name: `sco/${'a'.repeat(250)}.html`, data: 'x' }])
    assert.equal(error, null, '255 bytes is fine')
  })

  test('refuses a name with the store’s reserved temp prefix', async () => {
    const { error, written } = await tryUnpack([{ name: 'a/.cp-tmp-x.html', data: 'x' }, ok])
    assertRefused(
      error,
      'invalid_package',
      /'\.cp-tmp-x\.html' \(in 'a\/\.cp-tmp-x\.html'\).*reserved/,
    )
    assert.deepEqual(written, [])
  })
})

describe('unpackZip refuses links, encryption and unknown compression', () => {
  test('a symlink entry is refused with its name', async () => {
    const { error, written } = await tryUnpack([
      ok,
      { name: 'shared/link', data: '/etc/passwd', method: 0, unixMode: 0o120777 },
    ])
    assertRefused(error, 'invalid_package', /link \(symlink\) at 'shared\/link'/)
    assert.deepEqual(written, ['index.html'])
  })

  // Traditional PKWARE encryption puts a 12-byte header before the (encrypted) data.
  const encrypted = Buffer.concat([Buffer.alloc(12, 7), Buffer.from('secret')])

  test('a stored entry with the encryption flag is refused', async () => {
    const { error, written } = await tryUnpack([
      ok,
      { name: 'secret.html', data: 'secret', method: 0, flags: 0x1, compressed: encrypted },
    ])
    assertRefused(error, 'invalid_package', /'secret.html' is password-protected/)
    assert.deepEqual(written, ['index.html'])
  })

  test('a deflated entry with the encryption flag is refused', async () => {
    const { error } = await tryUnpack([
      { name: 'secret.html', data: 'secret', method: 8, flags: 0x1, compressed: encrypted },
    ])
    assertRefused(error, 'invalid_package', /'secret.html' is password-protected/)
  })

  test('strong encryption (bit 6) is refused', async () => {
    const { error } = await tryUnpack([{ name: 'secret.html', data: 'x', method: 0, flags: 0x41 }])
    assertRefused(error, 'invalid_package', /password-protected/)
  })

  test('an unsupported compression method is named', async () => {
    const { error } = await tryUnpack([
      { name: 'a.html', data: 'x', method: 14, compressed: Buffer.from('zz') },
    ])
    assertRefused(error, 'invalid_package', /compression method \(LZMA\)/)
  })
})

describe('unpackZip refuses duplicates and file/folder clashes', () => {
  test('the same name twice', async () => {
    const { error } = await tryUnpack([ok, { name: 'index.html', data: 'evil' }])
    assertRefused(error, 'invalid_package', /'index.html' more than once/)
  })

  test('names equal after normalisation (backslash, ./, //)', async () => {
    const { error } = await tryUnpack([
      { name: 'a/b.html', data: '1' },
      { name: '.\\a\\\\b.html', data: '2' },
    ])
    assertRefused(error, 'invalid_package', /'a\/b.html' more than once/)
  })

  test('a name used as a file and as a folder', async () => {
    const { error } = await tryUnpack([
      { name: 'a', data: '1' },
      { name: 'a/b.html', data: '2' },
    ])
    assertRefused(error, 'invalid_package', /'a' both as a file and as a folder/)
  })
})

describe('unpackZip refuses zip bombs', () => {
  const zeros = Buffer.alloc(4 * 1024 * 1024)

  test('one entry compressed far beyond 100:1', async () => {
    const { error, written } = await tryUnpack([{ name: 'bomb.bin', data: zeros }])
    assertRefused(error, 'invalid_package', /more than 100 times its compressed size.*zip bomb/)
    assert.deepEqual(written, [])
  })

  test('many entries that are fine alone but huge together (overall ratio)', async () => {
    // Each 900 KB of zeros stays under the per-entry floor; together they exceed 100x the zip.
    const chunk = Buffer.alloc(900 * 1024)
    const entries = Array.from({ length: 8 }, (_, i) => ({ name: `part${i}.bin`, data: chunk }))
    const { error } = await tryUnpack(entries)
    assertRefused(error, 'invalid_package', /unpacks to more than 100 times its own size/)
  })

  test('declared total size over the limit is refused before anything is written', async () => {
    const entries: ZipEntrySpec[] = Array.from({ length: 3 }, (_, i) => ({
      name: `big${i}.bin`,
      data: 'x',
      method: 8,
      declaredSize: 0xfffffff0, // ~4 GB declared each
      declaredCompressedSize: 0xfffffff0 / 50,
      compressed: Buffer.alloc(16),
    }))
    const { error, written } = await tryUnpack(entries)
    assertRefused(
      error,
      'payload_too_large',
      /larger than 1 GB when unpacked, the limit for one file/,
    )
    assert.deepEqual(written, [])
  })

  test('total size limit applies across files', async () => {
    const data = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919) % 251))
    const entries = Array.from({ length: 4 }, (_, i) => ({ name: `f${i}.bin`, data }))
    const { error, written } = await tryUnpack(entries, { maxTotalBytes: 10_000 })
    assertRefused(error, 'payload_too_large', /package is larger than 9.8 KB/)
    assert.deepEqual(written, ['f0.bin', 'f1.bin', 'f2.bin'])
  })

  test('a header that under-states the size is stopped on the streamed bytes', async () => {
    const real = Buffer.alloc(512 * 1024, 0x61)
    let received = 0
    const path = await scratch.write(
      'liar.zip',
      buildZip([{ name: 'liar.html', data: real, declaredSize: 1000 }]),
    )
    const error = await unpackZip(path, {}, async (_p, stream) => {
      received += await drain(stream)
    }).then(
      () => null,
      (err: unknown) => err,
    )
    assertRefused(error, 'invalid_package', /'liar.html' holds more data than its header declares/)
    assert.ok(received <= 1000, `the writer got ${received} bytes, more than declared`)
  })

  test('a lie detected before the writer starts reading still reaches the writer', async () => {
    const path = await scratch.write(
      'liar-late.zip',
      buildZip([{ name: 'late.bin', data: Buffer.alloc(256 * 1024, 1), declaredSize: 100 }]),
    )
    const error = await unpackZip(path, {}, async (_p, stream) => {
      await new Promise((r) => setTimeout(r, 50)) // e.g. a BlobStore opening its temp file
      await pipeline(stream, new Writable({ write: (_c, _e, cb) => cb() }))
    }).then(
      () => null,
      (err: unknown) => err,
    )
    assertRefused(error, 'invalid_package', /'late.bin' holds more data than its header declares/)
  })

  test('a header that over-states the size is refused as damaged', async () => {
    const { error } = await tryUnpack([
      { name: 'short.html', data: 'abc', declaredSize: 10, declaredCompressedSize: undefined },
    ])
    assertRefused(error, 'invalid_package', /'short.html'/)
  })

  test('a wrong CRC is refused as damaged', async () => {
    const { error } = await tryUnpack([{ name: 'a.html', data: 'hello', crc32: 1234 }])
    assertRefused(error, 'invalid_package', /'a.html' is damaged \(its checksum/)
  })
})

describe('unpackZip refuses too many entries and broken archives', () => {
  test('10 001 tiny entries are over the default limit of 10 000', async () => {
    const entries = Array.from({ length: 10_001 }, (_, i) => ({ name: `f/${i}.txt`, data: '' }))
    const { error, written } = await tryUnpack(entries)
    assertRefused(error, 'payload_too_large', /10001 files and folders; the limit is 10000/)
    assert.deepEqual(written, [])
  })

  test('exactly 10 000 entries are accepted', async () => {
    const entries = Array.from({ length: 10_000 }, (_, i) => ({ name: `f/${i}.txt`, data: '' }))
    const { error, written } = await tryUnpack(entries)
    assert.equal(error, null)
    assert.equal(written.length, 10_000)
  })

  test('a truncated zip (end record cut off)', async () => {
    const bytes = buildZip([ok, { name: 'b.html', data: 'b'.repeat(1000) }])
    const path = await scratch.write('cut.zip', bytes.subarray(0, bytes.length - 30))
    const error = await unpackZip(path, {}, async (_p, s) => {
      await drain(s)
    }).then(
      () => null,
      (e: unknown) => e,
    )
    assertRefused(error, 'invalid_package', /not a zip archive, or it is incomplete/)
  })

  test('a zip whose data is cut off before the central directory it points at', async () => {
    const bytes = buildZip([ok, { name: 'b.html', data: Buffer.alloc(5000, 1) }])
    const end = bytes.subarray(bytes.length - 22)
    const cut = Buffer.concat([bytes.subarray(0, 100), end])
    const path = await scratch.write('hole.zip', cut)
    const error = await unpackZip(path, {}, async (_p, s) => {
      await drain(s)
    }).then(
      () => null,
      (e: unknown) => e,
    )
    assertRefused(error, 'invalid_package', /damaged or incomplete|not a zip archive/)
  })

  test('a file that is not a zip at all', async () => {
    const path = await scratch.write('text.zip', Buffer.from('just some text, not a zip'))
    const error = await unpackZip(path, {}, async () => {}).then(
      () => null,
      (e: unknown) => e,
    )
    assertRefused(error, 'invalid_package', /not a zip archive/)
  })
})
