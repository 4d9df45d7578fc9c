import assert from 'node:assert/strict'
import { existsSync, readdirSync } from 'node:fs'
import { describe, test } from 'node:test'
import { setTimeout as delay } from 'node:timers/promises'
import {
  extractPart,
  probePresentation,
  readPresentation,
} from '../../../src/modules/conversions/ooxml/index.ts'
import { isAppError } from '../../../src/shared/app-error.ts'
import { collect, FIXTURES, readFixture as read } from './pptx-builder.helper.ts'

const opts = { timeout: 15_000 }

describe('reading real decks: images, media, links, objects and warnings', () => {
  test('images: part path, content type and alt text', opts, async () => {
    const album = await read('oxs_STRICT_Photo_Album3.pptx')
    assert.deepEqual(
      album.slides[1]?.images.map((i) => [i.partName, i.contentType, i.altText]),
      [
        ['ppt/media/image1.png', 'image/png', 'Tiger.bmp'],
        ['ppt/media/image2.png', 'image/png', 'untitled2.bmp'],
        ['ppt/media/image3.gif', 'image/gif', 'untitled.GIF'],
      ],
    )
    const gif = await read('oxs_Image_AnimatedGIF.pptx')
    assert.equal(gif.slides[0]?.images[0]?.partName, 'ppt/media/image1.gif')
    for (const file of ['poi_54542_cropped_bitmap.pptx', 'pyp_dml-fill.pptx']) {
      const deck = await read(file)
      const images = deck.slides.flatMap((s) => s.images)
      assert.ok(images.length > 0, `${file} has images`)
      assert.ok(
        images.every((i) => i.partName && !i.missing),
        `${file} images are in the package`,
      )
    }
  })

  test(
    'an externally linked picture is reported, not fetched, and warned about',
    opts,
    async () => {
      const deck = await read('oxs_linkedpicture.pptx')
      const image = deck.slides[0]?.images[0]
      assert.equal(image?.partName, null)
      assert.equal(image?.linkedUrl, 'http://www.google.com/intl/en/images/logo.gif')
      assert.deepEqual(deck.warnings.find((w) => w.code === 'linked_pictures')?.slides, [1])
    },
  )

  test('embedded audio and video: media part, type, poster, playable', opts, async () => {
    const video = (await read('poi_EmbeddedVideo.pptx')).slides[0]?.media[0]
    assert.equal(video?.kind, 'video')
    assert.equal(video?.partName, 'ppt/media/media1.mp4')
    assert.equal(video?.posterPartName, 'ppt/media/image1.png')
    assert.equal(video?.playable, true)
    const movie = (await read('pyp_shp-movie-props.pptx')).slides[0]?.media[0]
    assert.equal(movie?.contentType, 'video/unknown')
    assert.equal(movie?.playable, true, 'an .mp4 with a vague content type still plays')
    const audio = (await read('poi_EmbeddedAudio.pptx')).slides[0]?.media[0]
    assert.deepEqual(
      [audio?.kind, audio?.partName, audio?.contentType],
      ['audio', 'ppt/media/media1.mp3', 'audio/mpeg'],
    )
    const wav = (await read('oxs_SoundTest.pptx')).slides[0]?.media[0]
    assert.deepEqual([wav?.kind, wav?.partName], ['audio', 'ppt/media/audio1.wav'])
    // A NULL external audio link next to an embedded copy: the embedded copy wins.
    const ref = await read('oxs_mediareference.pptx')
    assert.deepEqual(
      ref.slides.map((s) => s.media[0]?.partName),
      ['ppt/media/media1.wav', 'ppt/media/media1.wav'],
    )
    assert.equal(ref.warnings.length, 0)
  })

  test(
    'hyperlinks: external URLs, slide jumps, navigation, file and macro actions',
    opts,
    async () => {
      const deck = await read('pyp_act-props.pptm')
      const targets = new Map(deck.slides[2]?.links.map((l) => [l.text, l.target]))
      assert.deepEqual(targets.get('8 hyperlink'), { type: 'url', url: 'http://yahoo.com' })
      assert.deepEqual(targets.get('6 named slide'), { type: 'slide', slideIndex: 3 })
      assert.deepEqual(targets.get('1 first slide'), { type: 'navigation', jump: 'firstslide' })
      assert.equal(targets.get('10 open file')?.type, 'file')
      assert.deepEqual(targets.get('13 run macro'), {
        type: 'unsupported',
        action: 'macro',
        detail: 'Dummy_Macro',
      })
      assert.ok(deck.warnings.some((w) => w.code === 'unsupported_links'))
      const crash = await read('oxs_block_hyperlink_crash.pptx')
      assert.ok(
        crash.slides[0]?.links.some(
          (l) => l.target.type === 'url' && l.target.url === 'http://www.foo.com/',
        ),
      )
      const geo = await read('poi_customGeo.pptx')
      const urls = geo.slides
        .flatMap((s) => s.links)
        .map((l) => (l.target.type === 'url' ? l.target.url : ''))
      assert.ok(urls.includes('http://www.corestandards.org/'))
      assert.ok(urls.includes('mailto:Elizabeth.bridges@education.ohio.gov'))
      const tika = (await read('poi_with_japanese.pptx')).slides[0]?.links[0]
      assert.deepEqual(tika, {
        text: 'This is a hyperlink',
        shapeName: 'Rectangle 3',
        scope: 'text',
        target: { type: 'url', url: 'http://tika.apache.org/' },
      })
    },
  )

  test('run-level bold and italic', opts, async () => {
    const deck = await read('poi_with_japanese.pptx')
    const runs = deck.slides[0]?.blocks
      .flatMap((b) => (b.kind === 'text' ? b.paragraphs : []))
      .flatMap((p) => p.runs)
    const bold = runs?.find((r) => r.text.includes('Bold'))
    assert.equal(bold?.bold, true)
    assert.ok(runs?.some((r) => r.italic))
  })

  test(
    'macro-enabled decks and templates are accepted; macros only warned about',
    opts,
    async () => {
      const pptm = await probePresentation(`${FIXTURES}poi_PPTWithAttachments.pptm`)
      assert.equal(pptm.format, 'pptm')
      assert.ok(pptm.warnings.some((w) => w.code === 'macros'))
      const potx = await probePresentation(`${FIXTURES}oxs_MultiChoiceTest_template.potx`)
      assert.equal(potx.format, 'potx')
      assert.equal(potx.visibleSlideCount, 11)
      assert.ok(!potx.warnings.some((w) => w.code === 'macros'))
    },
  )

  test('SmartArt, charts and OLE objects are noted; OLE is warned about', opts, async () => {
    const smart = await read('oxs_SmartArt_OrgChart_anim.pptx')
    assert.equal(smart.slides[0]?.objects[0]?.kind, 'smartart')
    const block = smart.slides[0]?.blocks.find((b) => b.kind === 'smartart')
    assert.ok(
      block?.kind === 'smartart' && block.paragraphs.length > 0,
      'SmartArt node text is extracted',
    )
    const chart = (await read('oxs_O12Typical.pptx')).slides[7]?.objects[0]
    assert.deepEqual([chart?.kind, chart?.title], ['chart', 'Presidential Approval Rating'])
    const ole = await read('poi_PPTWithAttachments.pptm')
    assert.ok(ole.slides.flatMap((s) => s.objects).some((o) => o.kind === 'ole' && o.progId))
    assert.ok(ole.warnings.some((w) => w.code === 'ole_objects'))
  })

  test('animations and transitions are detected and warned about', opts, async () => {
    const anim = await read('oxs_animation.pptx')
    assert.ok(anim.slides.some((s) => s.animations))
    assert.ok(anim.warnings.some((w) => w.code === 'animations'))
    assert.ok(anim.warnings.some((w) => w.code === 'transitions'))
    // Media play commands live in p:timing too but are not animations.
    const sound = await read('oxs_SoundTest.pptx')
    assert.equal(sound.slides[0]?.animations, false)
  })

  test('a missing relationship target does not crash the reader', opts, async () => {
    const deck = await read('pyp_EDGE_missing_rels_item.pptx')
    assert.equal(deck.slides[0]?.title, 'Presentation Title Text')
    const typical = await read('oxs_typical.pptx')
    const missing = typical.warnings.find((w) => w.code === 'missing_parts')
    assert.deepEqual(missing?.slides, [3], 'image relationship pointing at NULL')
  })

  test('a deck without slides is readable and says so', opts, async () => {
    const probe = await probePresentation(`${FIXTURES}pyp_EDGE_no-slides.pptx`)
    assert.equal(probe.slideCount, 0)
    assert.ok(probe.warnings.some((w) => w.code === 'no_slides'))
  })

  test(
    'extractPart streams a media part byte-for-byte; unknown parts are not_found',
    opts,
    async () => {
      const path = `${FIXTURES}poi_EmbeddedVideo.pptx`
      const video = await collect(await extractPart(path, '/PPT/media/media1.mp4'))
      assert.equal(video.subarray(4, 8).toString('latin1'), 'ftyp')
      const png = await collect(await extractPart(path, 'ppt/media/image1.png'))
      assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG')
      await assert.rejects(
        extractPart(path, 'ppt/media/nope.png'),
        (e) => isAppError(e) && e.code === 'not_found',
      )
      await assert.rejects(
        extractPart(path, 'ppt/media/media1.mp4', { maxBytes: 1000 }),
        (e) => isAppError(e) && e.code === 'unprocessable',
      )
      await assert.rejects(
        extractPart(`${FIXTURES}oxs_EDGE_encrypted_pptx.pptx`, 'ppt/presentation.xml'),
        (e) => isAppError(e) && /password-protected/.test(e.message),
      )
    },
  )

  test('no file descriptor is left open after reads, refusals and streams', opts, async (t) => {
    if (!existsSync('/proc/self/fd')) return t.skip('needs /proc')
    const openFds = () => readdirSync('/proc/self/fd').length
    const before = openFds()
    for (const file of [
      'oxs_O12Typical.pptx',
      'oxs_EDGE_encrypted_pptx.pptx',
      'poi_BROKEN_fuzz-5471515212382208.pptx',
    ]) {
      await probePresentation(`${FIXTURES}${file}`).catch(() => {})
      await readPresentation(`${FIXTURES}${file}`).catch(() => {})
    }
    const video = `${FIXTURES}poi_EmbeddedVideo.pptx`
    await collect(await extractPart(video, 'ppt/media/media1.mp4'))
    const early = await extractPart(video, 'ppt/media/media1.mp4')
    for await (const _chunk of early) break
    // yauzl closes its file descriptor in a callback it does not expose: wait for that to
    // happen, with a deadline that only turns a leak into a clear failure.
    const deadline = Date.now() + 5_000
    while (openFds() !== before && Date.now() < deadline) await delay(10)
    assert.equal(openFds(), before)
  })
})
