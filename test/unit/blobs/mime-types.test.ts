import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { contentTypeFor, lookupMimeType } from '../../../src/infra/blobs/mime-types.ts'

describe('content types by extension', () => {
  test('web content of course packages', () => {
    const expected: Record<string, string> = {
      'index.html': 'text/html',
      'a/b/LEGACY.HTM': 'text/html',
      'app.js': 'text/javascript',
      'mod.mjs': 'text/javascript',
      'style.css': 'text/css',
      'data.json': 'application/json',
      'imsmanifest.xml': 'application/xml',
      'adlcp_rootv1p2.xsd': 'application/xml',
      'a.png': 'image/png',
      'a.jpg': 'image/jpeg',
      'a.jpeg': 'image/jpeg',
      'a.gif': 'image/gif',
      'a.svg': 'image/svg+xml',
      'a.webp': 'image/webp',
      'favicon.ico': 'image/x-icon',
      'v.mp4': 'video/mp4',
      'v.webm': 'video/webm',
      'a.ogg': 'audio/ogg',
      'a.mp3': 'audio/mpeg',
      'a.wav': 'audio/wav',
      'a.m4a': 'audio/mp4',
      'f.woff': 'font/woff',
      'f.woff2': 'font/woff2',
      'f.ttf': 'font/ttf',
      'f.otf': 'font/otf',
      'doc.pdf': 'application/pdf',
      'readme.txt': 'text/plain',
      'old.swf': 'application/x-shockwave-flash',
      'captions.vtt': 'text/vtt',
      'course.zip': 'application/zip',
    }
    for (const [name, type] of Object.entries(expected))
      assert.equal(lookupMimeType(name), type, name)
  })

  test('unknown or missing extensions', () => {
    assert.equal(lookupMimeType('Makefile'), undefined)
    assert.equal(lookupMimeType('a.unknownext'), undefined)
    assert.equal(lookupMimeType('.htaccess'), undefined)
    assert.equal(lookupMimeType('dir.html/file'), undefined)
    assert.equal(lookupMimeType('x.constructor'), undefined)
    assert.equal(contentTypeFor('blob'), 'application/octet-stream')
    assert.equal(contentTypeFor('x.css'), 'text/css')
  })
})
