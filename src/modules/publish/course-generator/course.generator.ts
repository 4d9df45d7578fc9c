import { createWriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { type Readable, Transform, type Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { ZipFile } from 'yazl'
import { type PlannedAsset, planCourse } from './course.plan.ts'
import type { CourseInput, GeneratedCourse, GenerateOptions } from './course.types.ts'
import { courseJson } from './course-json.writer.ts'
import { manifestXml } from './manifest.writer.ts'
import { PLAYER_CSS } from './player.styles.ts'
import { playerPageHtml } from './player-page.renderer.ts'
import { playerScript } from './player-script.bundler.ts'

const LAUNCH = 'index.html'

interface ZipContext {
  zip: ZipFile
  mtime: Date
  fail: (err: unknown) => void
  /** Asset streams being read, destroyed if the zip fails so no file handle stays open. */
  reading: Set<Readable>
  failed: boolean
}

function addAsset(ctx: ZipContext, asset: PlannedAsset) {
  const { zip, mtime, fail, reading } = ctx
  const options = { mtime, compress: asset.compress }
  const { bytes, open } = asset.source
  if (bytes) {
    zip.addBuffer(
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      asset.path,
      options,
    )
    return
  }
  // Opened only when the writer reaches the entry, so a large deck holds one file open at a time.
  zip.addReadStreamLazy(asset.path, options, (cb) => {
    Promise.resolve()
      .then(() => (open as NonNullable<typeof open>)())
      .then(
        (stream) => {
          if (ctx.failed) {
            stream.destroy()
            return
          }
          reading.add(stream)
          stream.once('close', () => reading.delete(stream))
          // yazl pipes the stream without listening for its errors.
          stream.once('error', (err) =>
            fail(new Error(`${asset.path}: ${err.message}`, { cause: err })),
          )
          cb(null, stream)
        },
        (err: unknown) => fail(err),
      )
  })
}

/**
 * Writes a complete single-SCO course (SCORM 2004 4th Edition or 1.2) as a zip to `out`, a file
 * path (removed again on failure) or a stream (ended when the zip is complete):
 * imsmanifest.xml, index.html (every slide pre-rendered and escaped), player.js, player.css,
 * course.json and the slides' pictures and media under assets/. Throws AppError
 * `validation_failed` for unusable input before writing anything.
 */
export async function generateCourse(
  input: CourseInput,
  out: string | Writable,
  options: GenerateOptions = {},
): Promise<GeneratedCourse> {
  const plan = planCourse(input)
  const script = await playerScript()
  const mtime = options.mtime ?? new Date()
  const texts: [string, string][] = [
    [LAUNCH, playerPageHtml(plan)],
    ['player.js', script],
    ['player.css', PLAYER_CSS],
    ['course.json', courseJson(plan)],
  ]
  const content = [...texts.map(([path]) => path), ...plan.assets.map((a) => a.path)]
  const manifest = manifestXml({
    version: plan.version,
    identifier: plan.identifier,
    title: plan.title,
    launch: LAUNCH,
    files: content,
  })

  const zip = new ZipFile()
  const output = zip.outputStream as Readable
  const fail = (err: unknown) => output.destroy(err instanceof Error ? err : new Error(String(err)))
  const ctx: ZipContext = { zip, mtime, fail, reading: new Set(), failed: false }
  zip.on('error', fail)
  zip.addBuffer(Buffer.from(manifest, 'utf8'), 'imsmanifest.xml', { mtime })
  for (const [path, text] of texts) zip.addBuffer(Buffer.from(text, 'utf8'), path, { mtime })
  for (const asset of plan.assets) if (!asset.slidePicture) addAsset(ctx, asset)
  for (const asset of plan.assets) if (asset.slidePicture) addAsset(ctx, asset)
  zip.end()

  let bytes = 0
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length
      done(null, chunk)
    },
  })
  const destination = typeof out === 'string' ? createWriteStream(out) : out
  try {
    await pipeline(output, counter, destination)
  } catch (err) {
    ctx.failed = true
    for (const stream of ctx.reading) stream.destroy()
    if (typeof out === 'string') await rm(out, { force: true })
    throw err
  }
  return { files: ['imsmanifest.xml', ...content], bytes }
}
