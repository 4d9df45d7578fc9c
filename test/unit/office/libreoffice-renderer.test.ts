import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { isRenderError, type SlideRenderer } from '../../../src/infra/office/index.ts'
import {
  hiddenSlidesDeck,
  linkedPictureDeck,
  officeSkipReason,
  PPTX,
  processesMentioning,
  solidPng,
  startProbeServer,
  testRenderer,
} from './office.helper.ts'

const run = promisify(execFile)
const skip = await officeSkipReason()

/** Width and height from a JPEG's frame header. */
function jpegSize(b: Buffer): { width: number; height: number } {
  let i = 2
  while (i + 9 < b.length && b[i] === 0xff) {
    const marker = b[i + 1] as number
    if (marker >= 0xc0 && marker <= 0xc3) {
      return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) }
    }
    i += 2 + b.readUInt16BE(i + 2)
  }
  throw new Error('no JPEG frame header')
}

async function imagesInPdf(pdf: string): Promise<string[]> {
  const { stdout } = await run('pdfimages', ['-list', pdf])
  return stdout
    .split('\n')
    .slice(2)
    .filter((l) => l.trim())
    .map((l) => {
      const cols = l.trim().split(/\s+/)
      return `${cols[3]}x${cols[4]}`
    })
}

describe('LibreOffice slide renderer', { skip }, () => {
  let dir = ''
  let renderer: SlideRenderer
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cp-office-'))
    renderer = testRenderer()
  })
  after(() => rm(dir, { recursive: true, force: true }))

  const job = async (name: string) => {
    const workDir = join(dir, name)
    await mkdir(workDir, { recursive: true })
    return workDir
  }

  test('renders one JPEG per visible slide; page N stays slide N when slides are hidden', async () => {
    const workDir = await job('hidden')
    const deck = await hiddenSlidesDeck(join(workDir, 'deck.pptx'), [2, 5])
    const visible = [1, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
    const seen: number[] = []
    const announced: number[] = []
    const result = await renderer.render({
      inputPath: deck,
      workDir,
      plan: { slideCount: 15, slides: visible },
      onProgress: (done) => seen.push(done),
      onPicture: (slide, path) => {
        // Announced only once complete: the file already ends with the JPEG end marker.
        const bytes = readFileSync(path)
        assert.equal(bytes.readUInt16BE(bytes.length - 2), 0xffd9, `slide ${slide} is complete`)
        announced.push(slide)
      },
    })
    assert.deepEqual(
      announced.toSorted((a, b) => a - b),
      visible,
      'each picture is announced once',
    )
    assert.deepEqual(
      [...result.pictures.keys()].sort((a, b) => a - b),
      visible,
    )
    assert.equal(result.contentType, 'image/jpeg')
    for (const path of result.pictures.values()) {
      const size = jpegSize(await readFile(path))
      assert.equal(Math.max(size.width, size.height), 1280)
    }
    assert.equal(seen.at(-1), visible.length, 'progress ends at the number of slides')
    assert.ok(
      seen.every((n, i) => i === 0 || n >= (seen[i - 1] as number)),
      'progress only grows',
    )

    // The same slide of the deck without hidden slides gives the same picture.
    const plainDir = await job('plain')
    const plain = join(plainDir, 'deck.pptx')
    await copyFile(`${PPTX}oxs_typical.pptx`, plain)
    const reference = await renderer.render({
      inputPath: plain,
      workDir: plainDir,
      plan: { slideCount: 15, slides: [6] },
    })
    assert.deepEqual(
      await readFile(result.pictures.get(6) as string),
      await readFile(reference.pictures.get(6) as string),
    )
  })

  test('a file LibreOffice cannot open is reported, although soffice exits 0', async () => {
    const workDir = await job('broken')
    const deck = join(workDir, 'deck.pptx')
    await copyFile(`${PPTX}poi_BROKEN_fuzz-6254434927378432.pptx`, deck)
    await assert.rejects(
      renderer.render({ inputPath: deck, workDir, plan: { slideCount: 1, slides: [1] } }),
      (err) => isRenderError(err) && err.code === 'load_failed',
    )
  })

  test('a picture linked to a web address or a local file is neither fetched nor embedded', async () => {
    const server = await startProbeServer()
    const secret = join(dir, 'secret.png')
    await writeFile(secret, solidPng(321, 123))
    try {
      const httpDeck = (d: string) =>
        linkedPictureDeck(join(d, 'deck.pptx'), `${server.url}/probe.gif`)
      const fileDeck = (d: string) =>
        linkedPictureDeck(join(d, 'deck.pptx'), pathToFileURL(secret).href)

      // Control: LibreOffice with a default profile and network does both (SSRF, file read).
      const control = await job('control')
      const profile = pathToFileURL(join(control, 'profile')).href
      for (const make of [httpDeck, fileDeck]) {
        const deck = await make(control)
        await run(
          'soffice',
          [
            `-env:UserInstallation=${profile}`,
            '--headless',
            '--norestore',
            '--convert-to',
            'pdf',
            '--outdir',
            join(control, 'out'),
            deck,
          ],
          { timeout: 120_000 },
        )
        if (make === fileDeck) {
          assert.ok(
            (await imagesInPdf(join(control, 'out', 'deck.pdf'))).includes('321x123'),
            'control: the local file was embedded',
          )
        }
      }
      assert.ok(server.hits.length > 0, 'control: LibreOffice called the linked address')
      server.hits.length = 0

      // Production settings (hardened profile + no network), then the profile alone.
      for (const [name, r] of [
        ['sandboxed', renderer],
        ['profile only', testRenderer({ sandbox: 'none' })],
      ] as const) {
        for (const make of [httpDeck, fileDeck]) {
          const workDir = await job(`${name}-${make === httpDeck ? 'http' : 'file'}`)
          const result = await r.render({
            inputPath: await make(workDir),
            workDir,
            plan: { slideCount: 1, slides: [1] },
          })
          assert.equal(result.pictures.size, 1)
          const images = await imagesInPdf(join(workDir, 'pdf', 'deck.pdf'))
          assert.ok(!images.includes('321x123'), `${name}: the local file must not be embedded`)
        }
        assert.deepEqual(server.hits, [], `${name}: no request may leave LibreOffice`)
      }
    } finally {
      await server.close()
    }
  })

  test('several renders at once each get their own profile and all succeed', async () => {
    const decks = [
      'poi_table_test.pptx',
      'poi_SmartArt.pptx',
      'pyp_prs-notes.pptx',
      'oxs_Ink2.pptx',
    ]
    const results = await Promise.all(
      decks.map(async (file, i) => {
        const workDir = await job(`parallel-${i}`)
        const deck = join(workDir, 'deck.pptx')
        await copyFile(`${PPTX}${file}`, deck)
        return renderer.render({ inputPath: deck, workDir, plan: { slideCount: 1, slides: [1] } })
      }),
    )
    for (const r of results) assert.equal(r.pictures.size, 1)
  })

  test('a render over its time limit is killed with every process it started', async () => {
    const quick = testRenderer({ timeoutSeconds: 1 })
    const workDir = await job('timeout')
    const deck = join(workDir, 'deck.pptx')
    await copyFile(`${PPTX}poi_customGeo.pptx`, deck)
    await assert.rejects(
      quick.render({ inputPath: deck, workDir, plan: { slideCount: 48, slides: [1] } }),
      (err) => isRenderError(err) && err.code === 'timeout',
    )
    await new Promise((r) => setTimeout(r, 300))
    assert.deepEqual(processesMentioning(workDir), [], 'no LibreOffice process is left behind')
  })

  test('a cancelled render stops at once and leaves no process', async () => {
    const workDir = await job('abort')
    const deck = join(workDir, 'deck.pptx')
    await copyFile(`${PPTX}poi_customGeo.pptx`, deck)
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 500)
    const started = performance.now()
    await assert.rejects(
      renderer.render({
        inputPath: deck,
        workDir,
        plan: { slideCount: 48, slides: [1] },
        signal: controller.signal,
      }),
      (err) => isRenderError(err) && err.code === 'aborted',
    )
    assert.ok(performance.now() - started < 3000)
    await new Promise((r) => setTimeout(r, 300))
    assert.deepEqual(processesMentioning(workDir), [])
  })
})
