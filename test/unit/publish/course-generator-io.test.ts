import assert from 'node:assert/strict'
import { access, readFile } from 'node:fs/promises'
import { PassThrough, Readable, Writable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { inspectPackage } from '../../../src/modules/packages/unpack/index.ts'
import {
  type CourseInput,
  generateCourse,
  parseSlideMarkdown,
} from '../../../src/modules/publish/course-generator/index.ts'
import { isAppError } from '../../../src/shared/app-error.ts'
import { PNG, readZip, sampleCourse, scratch } from './course-zip.helper.ts'

let dir: Awaited<ReturnType<typeof scratch>>
before(async () => {
  dir = await scratch('courseport-generate-')
})
after(async () => {
  await dir.cleanup()
})

describe('generating', () => {
  test('the same input, identifier and time give the same zip, to a file or a stream', async () => {
    const input = { ...sampleCourse('2004'), identifier: 'course-1' }
    input.slides = input.slides.slice(0, 1)
    const mtime = new Date('2025-01-01T00:00:00Z')
    const path = dir.path('same.zip')
    const toFile = await generateCourse(input, path, { mtime })
    const sink = new PassThrough()
    const chunks: Buffer[] = []
    sink.on('data', (c: Buffer) => chunks.push(c))
    const toStream = await generateCourse(input, sink, { mtime })
    const streamed = Buffer.concat(chunks)
    assert.deepEqual(streamed, await readFile(path))
    assert.equal(toStream.bytes, streamed.length)
    assert.equal(toFile.bytes, streamed.length)
    const manifest = (await readZip(path)).get('imsmanifest.xml')?.toString() ?? ''
    assert.match(manifest, /<manifest identifier="course-1"/)
  })

  test('an asset stream that fails fails the course and leaves no partial file', async () => {
    const out = dir.path('broken.zip')
    const input: CourseInput = {
      title: 'Broken',
      scormVersion: '2004',
      slides: [
        {
          title: 'A',
          blocks: [],
          images: [
            {
              fileName: 'x.png',
              altText: 'x',
              contentType: 'image/png',
              open: () =>
                new Readable({
                  read() {
                    this.destroy(new Error('disk on fire'))
                  },
                }),
            },
          ],
        },
      ],
    }
    await assert.rejects(generateCourse(input, out), /disk on fire/)
    await assert.rejects(access(out))
    const failingOpen = { ...input }
    failingOpen.slides = [
      {
        title: 'A',
        blocks: [],
        images: [
          {
            fileName: 'x.png',
            altText: '',
            contentType: 'image/png',
            open: async () => Promise.reject(new Error('gone')),
          },
        ],
      },
    ]
    await assert.rejects(generateCourse(failingOpen, out), /gone/)
    await assert.rejects(access(out))
  })

  test('a destination that fails leaves no asset stream open', async () => {
    let opened = 0
    let closed = 0
    const image = (n: number) => ({
      fileName: `i${n}.png`,
      altText: '',
      contentType: 'image/png',
      open: () => {
        opened++
        const stream = Readable.from(
          (async function* () {
            for (let i = 0; i < 400; i++) {
              await new Promise((resolve) => setImmediate(resolve))
              yield Buffer.alloc(16 * 1024, i)
            }
          })(),
        )
        stream.once('close', () => closed++)
        return stream
      },
    })
    let written = 0
    // Fails part-way through the first picture (the page, player and styles come first).
    const failing = new Writable({
      write(chunk: Buffer, _encoding, done) {
        written += chunk.length
        done(written > 60 * 1024 ? new Error('disk full') : null)
      },
    })
    const input: CourseInput = {
      title: 'Disk full',
      scormVersion: '2004',
      slides: [{ title: 'A', blocks: [], images: [image(1), image(2), image(3)] }],
    }
    await assert.rejects(generateCourse(input, failing), /disk full/)
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.ok(opened >= 1)
    assert.equal(closed, opened)
  })

  test('unusable input is refused before anything is written, naming every problem', async () => {
    const out = dir.path('refused.zip')
    try {
      await generateCourse(
        {
          title: ' ',
          scormVersion: '2005' as '2004',
          language: 'english please',
          slides: [
            {
              title: 'A',
              blocks: [],
              images: [
                { fileName: 'a.tiff', altText: '', contentType: 'image/tiff', bytes: PNG },
                { fileName: 'b.png', altText: '', contentType: 'image/png' },
                {
                  fileName: 'c.png',
                  altText: '',
                  contentType: 'image/png',
                  bytes: PNG,
                  open: () => Readable.from([]),
                },
              ],
              media: [
                {
                  fileName: 'm.avi',
                  kind: 'video',
                  contentType: 'video/x-msvideo',
                  open: () => Readable.from([]),
                },
              ],
            },
          ],
        },
        out,
      )
      assert.fail('accepted')
    } catch (err) {
      assert.ok(isAppError(err), String(err))
      assert.equal(err.code, 'validation_failed')
      const problems = (err.details as { problems: string[] }).problems
      assert.equal(problems.length, 7, problems.join('\n'))
      assert.match(err.message, /title.*\(and 6 more problems\)/)
      assert.ok(problems.some((p) => p.startsWith("Slide 1, image 1 has the type 'image/tiff'")))
      assert.ok(problems.some((p) => p.startsWith('Slide 1, video 1')))
    }
    await assert.rejects(access(out))
    await assert.rejects(
      generateCourse({ title: 'No slides', scormVersion: '2004', slides: [] }, out),
      /at least one slide/,
    )
  })

  test('characters XML forbids are dropped, so any title still gives a valid manifest', async () => {
    const out = dir.path('controls.zip')
    await generateCourse(
      {
        title: 'Bad\u0000chars\u0008 \ud800here\uffff',
        scormVersion: '1.2',
        slides: [{ title: 'A\u001b', blocks: parseSlideMarkdown('x\u0001y'), images: [] }],
      },
      out,
    )
    const summary = await inspectPackage(out)
    assert.equal(summary.title, 'Badchars here')
    assert.match((await readZip(out)).get('index.html')?.toString() ?? '', /<p>xy<\/p>/)
  })
})
