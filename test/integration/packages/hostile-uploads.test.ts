import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { deflateRawSync } from 'node:zlib'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { multipartFile } from '../../helpers/multipart.ts'
import { buildZip, scorm12Manifest, type ZipEntrySpec } from '../../helpers/zip-builder.ts'

const manifest = { name: 'imsmanifest.xml', data: scorm12Manifest() }
const index = { name: 'index.html', data: '<html><body>hello</body></html>' }
const valid = (...extra: ZipEntrySpec[]) => buildZip([manifest, index, ...extra])

const bomb = Buffer.alloc(20 * 1024 * 1024) // 20 MiB of zeros deflates ~1000:1
const truncatedZip = (() => {
  const whole = valid({ name: 'big.txt', data: 'x'.repeat(100_000) })
  return whole.subarray(0, Math.floor(whole.length * 0.6))
})()

/** Each zip must be refused with this status and nothing stored. */
const HOSTILE: Array<{ name: string; zip: () => Buffer; status: number; message: RegExp }> = [
  {
    name: 'zip slip ../',
    zip: () => valid({ name: '../evil.html', data: 'x' }),
    status: 422,
    message: /evil/,
  },
  {
    name: 'zip slip backslash',
    zip: () => valid({ name: '..\\evil.html', data: 'x' }),
    status: 422,
    message: /evil/,
  },
  {
    name: 'absolute path',
    zip: () => valid({ name: '/etc/evil', data: 'x' }),
    status: 422,
    message: /evil/,
  },
  {
    name: 'symlink',
    zip: () => valid({ name: 'link', data: '/etc/passwd', unixMode: 0o120777 }),
    status: 422,
    message: /link/i,
  },
  {
    name: 'zip bomb by ratio',
    zip: () => valid({ name: 'zeros.bin', data: bomb }),
    status: 422,
    message: /compress|ratio/i,
  },
  {
    name: 'zip bomb by size (lying header)',
    zip: () =>
      valid({
        name: 'liar.bin',
        data: Buffer.alloc(3 * 1024 * 1024, 7),
        declaredSize: 1000,
        crc32: 0,
      }),
    status: 422,
    message: /liar|size|declared|larger/i,
  },
  {
    name: 'encrypted entry',
    zip: () => valid({ name: 'secret.html', data: 'x', flags: 1 }),
    status: 422,
    message: /encrypt|password/i,
  },
  {
    name: 'DOCTYPE in manifest',
    zip: () =>
      buildZip([
        {
          name: 'imsmanifest.xml',
          data: '<?xml version="1.0"?><!DOCTYPE m [<!ENTITY a "aaaa">]><manifest>&a;</manifest>',
        },
        index,
      ]),
    status: 422,
    message: /DOCTYPE|entit/i,
  },
  {
    // The fs blob store cannot hold it; refused in validation, naming the entry (issue 10.13).
    name: 'a file name over 255 bytes',
    zip: () => valid({ name: `sco/${'n'.repeat(251)}.html`, data: 'x' }),
    status: 422,
    message: /name longer than 255 bytes \('sco\/nnnn/,
  },
  {
    name: 'a name with the blob store’s reserved temp prefix',
    zip: () => valid({ name: 'sco/.cp-tmp-1.html', data: 'x' }),
    status: 422,
    message: /'\.cp-tmp-1\.html' \(in 'sco\/\.cp-tmp-1\.html'\)/,
  },
  {
    // Parsing it whole took ~290 MB (issue 10.9); now refused by a scan, naming the limit.
    name: 'a manifest of 60 000 items (3 MB, under the 4 MiB manifest size cap)',
    zip: () =>
      buildZip([
        {
          name: 'imsmanifest.xml',
          data: scorm12Manifest().replace(
            /<item /,
            `${Array.from({ length: 60_000 }, (_, i) => `<item identifier="x${i}"/>`).join('')}<item `,
          ),
        },
        index,
      ]),
    status: 422,
    message: /60001 items; at most 10000 are accepted \(limit maxManifestItems\)/,
  },
  {
    name: 'truncated zip',
    zip: () => truncatedZip,
    status: 422,
    message: /zip|damaged|truncat|read/i,
  },
  {
    name: '10 001 tiny entries',
    zip: () =>
      valid(...Array.from({ length: 10_000 }, (_, i) => ({ name: `f/${i}.txt`, data: '' }))),
    status: 413,
    message: /10[ ,.]?000|entries|files/i,
  },
]

describeEachDatabase('hostile uploads', (database) => {
  let t: TestApp
  let tenant: TestTenant
  before(async () => {
    t = await createTestApp(database(), { env: { UNPACK_MAX_BYTES: String(50 * 1024 * 1024) } })
    tenant = await t.createTenant()
  })
  after(() => t.close())

  async function nothingStored(): Promise<void> {
    const packages = await t.ctx.db.kysely.selectFrom('packages').select('id').execute()
    assert.equal(packages.length, 0, 'no package row')
    const versions = await t.ctx.db.kysely.selectFrom('package_versions').select('id').execute()
    assert.equal(versions.length, 0, 'no version row')
    const blobs: string[] = []
    for await (const key of t.ctx.blobs.list(`${tenant.tenantId}/`)) blobs.push(key)
    assert.deepEqual(blobs, [], 'no blob')
  }

  for (const hostile of HOSTILE) {
    test(`${hostile.name}: refused, nothing stored`, async () => {
      const { payload, headers } = multipartFile(hostile.zip())
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/packages/upload',
        payload,
        headers: { ...headers, ...bearer(tenant.testKey) },
      })
      assert.equal(res.statusCode, hostile.status, res.body)
      const error = res.json().error
      assert.equal(typeof error.code, 'string')
      assert.match(error.message, hostile.message)
      assert.ok(!error.message.includes(tenant.tenantId), 'no storage key in the message')
      await nothingStored()
    })
  }

  test('the same refusal happens on the presigned path, and the uploaded object is dropped', async () => {
    const zip = valid({ name: '../evil.html', data: 'x' })
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload-url',
      headers: bearer(tenant.testKey),
      payload: { filename: 'evil.zip', file_size: zip.length },
    })
    const { presigned_url, required_put_headers, storage_path } = issued.json()
    await t.app.inject({
      method: 'PUT',
      url: new URL(presigned_url).pathname,
      headers: required_put_headers,
      payload: zip,
    })
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/process',
      headers: bearer(tenant.testKey),
      payload: { storage_path },
    })
    assert.equal(res.statusCode, 422)
    await nothingStored()
  })

  test('a well-formed zip still passes with these limits (the guards are not over-eager)', async () => {
    const text = Buffer.from('<p>lesson</p>'.repeat(2000))
    const { payload, headers } = multipartFile(
      valid({ name: 'lesson.html', data: text, compressed: deflateRawSync(text), method: 8 }),
    )
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload',
      payload,
      headers: { ...headers, ...bearer(tenant.testKey) },
    })
    assert.equal(res.statusCode, 201, res.body)
  })
})
