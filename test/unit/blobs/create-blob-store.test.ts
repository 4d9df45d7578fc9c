import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { createBlobStore } from '../../../src/infra/blobs/create-blob-store.ts'
import { FsBlobStore } from '../../../src/infra/blobs/fs-blob-store.ts'
import { parseS3Url, S3BlobStore } from '../../../src/infra/blobs/s3-blob-store.ts'

const base = {
  dataDir: '/srv/courseport/data',
  publicUrl: 'https://cp.example',
  uploadSecret: 'x'.repeat(32),
}

describe('blob store factory', () => {
  test('no STORAGE_URL: files under DATA_DIR/blobs', () => {
    const store = createBlobStore(base)
    assert.ok(store instanceof FsBlobStore)
    assert.equal(store.kind, 'fs')
    assert.equal(store.root, join('/srv/courseport/data', 'blobs'))
    assert.equal(createBlobStore({ ...base, storageUrl: '' }).kind, 'fs')
  })

  test('file:// URL: files under that directory', () => {
    const store = createBlobStore({ ...base, storageUrl: 'file:///var/lib/cp%20blobs' })
    assert.ok(store instanceof FsBlobStore)
    assert.equal(store.root, '/var/lib/cp blobs')
  })

  test('s3:// URL: the S3 backend with bucket and prefix', async () => {
    const store = createBlobStore({
      ...base,
      storageUrl: 's3://my-bucket/courseport/prod/',
      s3: { endpoint: 'http://127.0.0.1:9', region: 'eu-west-1', forcePathStyle: true },
    })
    assert.ok(store instanceof S3BlobStore)
    assert.equal(store.bucket, 'my-bucket')
    assert.equal(store.prefix, 'courseport/prod/')
    assert.equal(await store.client.config.region(), 'eu-west-1')
    assert.equal(store.client.config.forcePathStyle, true)
    await store.close()
  })

  test('anything else names STORAGE_URL in the error', () => {
    for (const storageUrl of [
      'gs://bucket',
      '/var/lib/blobs',
      'https://s3.amazonaws.com/bucket',
      's3://',
      's3://Bad_Bucket!/x',
      's3://bucket/../escape',
      's3://bucket/x?versionId=1',
      'file://remote-host/share',
    ]) {
      assert.throws(() => createBlobStore({ ...base, storageUrl }), /STORAGE_URL/, storageUrl)
    }
  })
})

describe('s3:// URLs', () => {
  test('bucket with optional prefix', () => {
    assert.deepEqual(parseS3Url('s3://bucket'), { bucket: 'bucket', prefix: '' })
    assert.deepEqual(parseS3Url('s3://bucket/'), { bucket: 'bucket', prefix: '' })
    assert.deepEqual(parseS3Url('s3://my.bucket-1/a/b'), { bucket: 'my.bucket-1', prefix: 'a/b/' })
    assert.deepEqual(parseS3Url('s3://bucket//a/b//'), { bucket: 'bucket', prefix: 'a/b/' })
  })
})
