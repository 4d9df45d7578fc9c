import assert from 'node:assert/strict'
import { copyFile, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import {
  RenderError,
  type RenderedSlides,
  type RenderRequest,
  type SlideRenderer,
} from '../../../src/infra/office/index.ts'
import { convertPresentation } from '../../../src/modules/conversions/conversion.pipeline.ts'
import { readZip } from '../publish/course-zip.helper.ts'
import { FIXTURES, tempDir } from './pptx-builder.helper.ts'

/** oxs_typical.pptx: 15 slides, all visible. */
const SLIDES = 15

/** Bytes that stand for slide N's picture (the generator does not decode pictures). */
const pictureOf = (slide: number) => Buffer.from(`\xff\xd8 picture of slide ${slide}`, 'latin1')

/**
 * A renderer that draws slides one by one, announcing each, and lets the test decide when to go
 * on: `step()` draws the next slide; `failAt` makes it stop with a RenderError at that slide,
 * `skip` leaves that slide without a picture.
 */
function steppedRenderer(options: { failAt?: number; skip?: number } = {}) {
  const requests: RenderRequest[] = []
  let release: (() => void) | undefined
  const step = () => release?.()
  const renderer: SlideRenderer = {
    availability: async () => ({ available: true, version: 'test' }),
    async render(request): Promise<RenderedSlides> {
      requests.push(request)
      request.onStarted?.()
      const plan = await request.plan
      const pictures = new Map<number, string>()
      await mkdir(request.workDir, { recursive: true })
      for (const slide of plan.slides) {
        await new Promise<void>((resolve) => {
          release = resolve
        })
        if (request.signal?.aborted) throw new RenderError('aborted', 'The render was cancelled')
        if (slide === options.failAt) throw new RenderError('raster_failed', 'poppler refused')
        if (slide === options.skip) continue
        const path = join(request.workDir, `slide-${slide}.jpg`)
        await writeFile(path, pictureOf(slide))
        pictures.set(slide, path)
        request.onPicture?.(slide, path)
        request.onProgress?.(pictures.size)
      }
      return { contentType: 'image/jpeg', pictures, timings: { officeMs: 1, rasterMs: 1 } }
    },
  }
  return { renderer, requests, step }
}

/** Calls `step` until `done` settles (each call draws one slide). */
async function drive(step: () => void, done: Promise<unknown>) {
  let settled = false
  done.then(
    () => (settled = true),
    () => (settled = true),
  )
  while (!settled) {
    step()
    await new Promise((resolve) => setImmediate(resolve))
  }
}

describe('conversion pipeline with a renderer that draws slide by slide', () => {
  let dir = ''
  let cleanup = async () => {}
  before(async () => {
    ;({ dir, cleanup } = await tempDir())
  })
  after(() => cleanup())

  const job = async (name: string) => {
    const workDir = join(dir, name)
    await mkdir(workDir, { recursive: true })
    const sourcePath = join(workDir, 'source.pptx')
    await copyFile(join(FIXTURES, 'oxs_typical.pptx'), sourcePath)
    return { workDir, sourcePath, title: name, scormVersion: '2004' as const, identifier: name }
  }

  test('every slide picture announced while rendering ends up in the course, in order', async () => {
    const { renderer, step } = steppedRenderer()
    const progress: number[] = []
    const converting = convertPresentation({
      ...(await job('streamed')),
      renderer,
      onProgress: (done) => progress.push(done),
    })
    await drive(step, converting)
    const result = await converting
    assert.equal(result.rendering, 'libreoffice')
    assert.ok(!result.warnings.some((w) => w.code.startsWith('rendering_')))
    const files = await readZip(result.zipPath)
    const pictures = [...files.keys()].filter((name) => name.endsWith('-slide.jpg'))
    assert.equal(pictures.length, SLIDES)
    for (const [i, name] of pictures.entries()) {
      assert.deepEqual(files.get(name), pictureOf(i + 1), name)
    }
    assert.equal(progress.at(-1), SLIDES)
  })

  test('a render that fails after some pictures gives a text-only course with a warning', async () => {
    const { renderer, step } = steppedRenderer({ failAt: 9 })
    const converting = convertPresentation({ ...(await job('lost-bet')), renderer })
    await drive(step, converting)
    const result = await converting
    assert.equal(result.rendering, 'text_only')
    assert.ok(result.warnings.some((w) => w.code === 'rendering_failed'))
    const files = await readZip(result.zipPath)
    assert.deepEqual(
      [...files.keys()].filter((name) => name.endsWith('-slide.jpg')),
      [],
    )
    assert.ok(files.has('imsmanifest.xml'))
  })

  test('a slide the renderer drew no picture of shows its text, the others their pictures', async () => {
    const { renderer, step } = steppedRenderer({ skip: 4 })
    const converting = convertPresentation({ ...(await job('one-missing')), renderer })
    await drive(step, converting)
    const result = await converting
    assert.equal(result.rendering, 'libreoffice')
    const files = await readZip(result.zipPath)
    const pictures = [...files.keys()].filter((name) => name.endsWith('-slide.jpg'))
    assert.equal(pictures.length, SLIDES - 1)
    for (const name of pictures) assert.ok(!(files.get(name) as Buffer).equals(pictureOf(4)), name)
  })

  test('a cancelled conversion rejects once the render has stopped', async () => {
    const { renderer, step, requests } = steppedRenderer()
    const controller = new AbortController()
    const converting = convertPresentation({
      ...(await job('cancelled')),
      renderer,
      signal: controller.signal,
    })
    // Let it draw three slides, then cancel.
    for (let i = 0; i < 3; i++) {
      step()
      await new Promise((resolve) => setImmediate(resolve))
    }
    controller.abort()
    await drive(step, converting)
    await assert.rejects(converting, (err) => err instanceof RenderError && err.code === 'aborted')
    assert.equal(requests.length, 1)
  })
})
