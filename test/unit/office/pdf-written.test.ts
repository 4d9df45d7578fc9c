import assert from 'node:assert/strict'
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { isCompletePdf, whenPdfWritten } from '../../../src/infra/office/pdf-written.ts'

/** A one-page PDF with a classic cross-reference table and correct offsets. */
function smallPdf(): Buffer {
  const objects = [
    '<</Type/Catalog/Pages 2 0 R>>',
    '<</Type/Pages/Kids[3 0 R]/Count 1>>',
    '<</Type/Page/Parent 2 0 R/MediaBox[0 0 100 100]>>',
  ]
  let body = '%PDF-1.4\n'
  const offsets: number[] = []
  for (const [i, object] of objects.entries()) {
    offsets.push(body.length)
    body += `${i + 1} 0 obj\n${object}\nendobj\n`
  }
  const xref = body.length
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`
  body += `trailer\n<</Size ${objects.length + 1}/Root 1 0 R>>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(body, 'latin1')
}

describe('a PDF being written', () => {
  let dir = ''
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cp-pdf-written-'))
  })
  after(() => rm(dir, { recursive: true, force: true }))

  test('is complete only once its trailer points at its cross-reference table', async () => {
    const pdf = smallPdf()
    const path = join(dir, 'check.pdf')
    assert.equal(await isCompletePdf(path), false, 'absent')
    await writeFile(path, pdf.subarray(0, pdf.length - 20))
    assert.equal(await isCompletePdf(path), false, 'cut short')
    await writeFile(path, pdf)
    assert.equal(await isCompletePdf(path), true)
    // A trailer whose offset misses the table (e.g. a file put together wrongly) is not trusted.
    await writeFile(
      path,
      Buffer.from(pdf.toString('latin1').replace(/startxref\n\d+/, 'startxref\n9')),
    )
    assert.equal(await isCompletePdf(path), false, 'offset off')
  })

  test('is announced once its last bytes are written, not before', async () => {
    const pdf = smallPdf()
    const path = join(dir, 'deck.pdf')
    const stop = new AbortController()
    let announced = false
    const written = whenPdfWritten(path, stop.signal).then((complete) => {
      announced = true
      return complete
    })
    await writeFile(path, pdf.subarray(0, 100))
    await appendFile(path, pdf.subarray(100, pdf.length - 10))
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(announced, false)
    await appendFile(path, pdf.subarray(pdf.length - 10))
    assert.equal(await written, true)
  })

  test('gives up when told to', async () => {
    const stop = new AbortController()
    const written = whenPdfWritten(join(dir, 'never.pdf'), stop.signal)
    stop.abort()
    assert.equal(await written, false)
  })
})
