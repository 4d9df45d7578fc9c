import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Script } from 'node:vm'
import { inspectPackage } from '../../../src/modules/packages/unpack/index.ts'
import { generateCourse } from '../../../src/modules/publish/course-generator/index.ts'
import {
  child,
  children,
  HOSTILE,
  PNG,
  parseManifest,
  readZip,
  sampleCourse,
  scratch,
} from './course-zip.helper.ts'

let dir: Awaited<ReturnType<typeof scratch>>
before(async () => {
  dir = await scratch('courseport-course-')
})
after(async () => {
  await dir.cleanup()
})

for (const version of ['2004', '1.2'] as const) {
  describe(`a generated SCORM ${version} course`, () => {
    let zipPath: string
    let files: Map<string, Buffer>
    let result: Awaited<ReturnType<typeof generateCourse>>
    const text = (name: string) =>
      files.get(name)?.toString('utf8') ?? assert.fail(`${name} missing`)

    before(async () => {
      zipPath = dir.path(`course-${version}.zip`)
      result = await generateCourse(sampleCourse(version), zipPath)
      files = await readZip(zipPath)
    })

    test('holds the manifest, one SCO and its assets, as reported', () => {
      assert.deepEqual([...files.keys()].sort(), [...result.files].sort())
      assert.equal(result.files[0], 'imsmanifest.xml')
      for (const f of ['index.html', 'player.js', 'player.css', 'course.json'])
        assert.ok(files.has(f), f)
      for (const f of files.keys()) {
        if (f.includes('/')) assert.match(f, /^assets\/[a-z0-9-]+\.[a-z0-9]+$/, f)
      }
      assert.deepEqual(files.get('assets/s001-img1-photo-1.png'), PNG)
      assert.deepEqual(files.get('assets/s002-img1-streamed.png'), PNG)
      assert.equal(files.get('assets/s002-media1-clip.mp4')?.toString(), 'not really a video')
      assert.ok(result.bytes > 0)
    })

    test('the manifest has the structure an LMS imports', () => {
      const manifest = child(parseManifest(text('imsmanifest.xml')), 'manifest')
      const meta = child(manifest, 'metadata')
      assert.equal(meta.schema, 'ADL SCORM')
      assert.equal(meta.schemaversion, version === '2004' ? '2004 4th Edition' : '1.2')
      if (version === '2004') {
        assert.equal(manifest['@_xmlns'], 'http://www.imsglobal.org/xsd/imscp_v1p1')
        assert.equal(manifest['@_xmlns:adlcp'], 'http://www.adlnet.org/xsd/adlcp_v1p3')
      } else {
        assert.equal(manifest['@_xmlns'], 'http://www.imsproject.org/xsd/imscp_rootv1p1p2')
        assert.equal(manifest['@_xmlns:adlcp'], 'http://www.adlnet.org/xsd/adlcp_rootv1p2')
        assert.doesNotMatch(text('imsmanifest.xml'), /v1p3|imsss/)
      }
      const orgs = child(manifest, 'organizations')
      const [org] = children(orgs, 'organization')
      assert.equal(orgs['@_default'], org?.['@_identifier'])
      assert.equal(child(org, 'title'), `Safety 101 ${HOSTILE}`)
      const [item, ...moreItems] = children(org, 'item')
      assert.equal(moreItems.length, 0)
      const [resource, ...moreResources] = children(child(manifest, 'resources'), 'resource')
      assert.equal(moreResources.length, 0)
      assert.equal(item?.['@_identifierref'], resource?.['@_identifier'])
      assert.equal(resource?.['@_href'], 'index.html')
      assert.equal(resource?.['@_type'], 'webcontent')
      const scormType = version === '2004' ? '@_adlcp:scormType' : '@_adlcp:scormtype'
      assert.equal(resource?.[scormType], 'sco')
      const listed = children(resource, 'file').map((f) => f['@_href'])
      assert.deepEqual(listed.sort(), result.files.filter((f) => f !== 'imsmanifest.xml').sort())
      if (version === '2004') {
        const controls = child(child(item, 'imsss:sequencing'), 'imsss:deliveryControls')
        assert.equal(controls['@_completionSetByContent'], 'true')
        assert.equal(controls['@_objectiveSetByContent'], 'true')
      }
    })

    test('our own upload validation accepts it with the right version', async () => {
      const summary = await inspectPackage(zipPath)
      assert.equal(summary.contentType, 'scorm')
      assert.equal(summary.scormVersion, version)
      assert.equal(summary.edition, version === '2004' ? '4th' : null)
      assert.equal(summary.title, `Safety 101 ${HOSTILE}`)
      assert.deepEqual(summary.warnings, [])
      assert.equal(summary.launches.length, 1)
      assert.equal(summary.launches[0]?.kind, 'sco')
      assert.equal(summary.launches[0]?.path, 'index.html')
      if (version === '2004') {
        const item = summary.scorm?.organizations[0]?.items[0]
        assert.deepEqual(item?.hideLmsUi.sort(), ['continue', 'previous'])
      }
    })

    test('every file the page, styles and player refer to is in the package', () => {
      const html = text('index.html')
      const refs = [...html.matchAll(/\s(?:src|href|poster)="([^"]*)"/g)].map((m) => m[1] ?? '')
      const local = refs.filter((r) => !r.startsWith('#') && !/^https:\/\/example\.com\//.test(r))
      assert.ok(local.length >= 6, local.join(', '))
      for (const ref of local) assert.ok(files.has(ref), `${ref} is in the zip`)
      for (const id of [...html.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]))
        assert.match(html, new RegExp(`id="${id}"`), `#${id} exists`)
    })

    test('nothing is loaded from the network at play time', () => {
      const html = text('index.html')
      const css = text('player.css')
      const js = text('player.js')
      // The only absolute URLs in the page are links the learner may click, opened in a new tab.
      for (const m of html.matchAll(/<(\w+)[^>]*?\s(\w+)="(?:https?:)?\/\/[^"]*"[^>]*>/g)) {
        assert.equal(m[1], 'a', m[0])
        assert.equal(m[2], 'href', m[0])
        assert.match(m[0], /target="_blank" rel="noopener noreferrer"/)
      }
      assert.doesNotMatch(html, /(?:src|poster|srcset|data|action)="(?:https?:)?\/\//)
      assert.match(html, /http-equiv="Content-Security-Policy" content="default-src 'self';/)
      assert.doesNotMatch(css, /url\(|@import|https?:|\/\//)
      assert.doesNotMatch(
        js,
        /https?:|\/\/[a-z]|fetch\(|XMLHttpRequest|sendBeacon|WebSocket|import\(/,
      )
      for (const [name, bytes] of files) {
        if (/\.(html|css|js|json)$/.test(name) && name !== 'course.json')
          assert.doesNotMatch(
            bytes.toString(),
            /(?:src|href)\s*=\s*["']?https?:\/\/(?!example\.com)/,
            name,
          )
      }
    })

    test('text from the input appears escaped everywhere', () => {
      const html = text('index.html')
      assert.equal(html.match(/<script/g)?.length, 1, 'only the player script tag')
      assert.doesNotMatch(html, /<img src=x|onerror=alert\(1\)>|="javascript:/)
      const escaped =
        '&lt;img src=x onerror=alert(1)&gt; &quot;quoted&quot; &amp; &lt;script&gt;alert(2)&lt;/script&gt;'
      assert.ok(html.includes(`<title>Safety 101 ${escaped}</title>`))
      assert.ok(html.includes(`<h1 class="course-title">Safety 101 ${escaped}</h1>`))
      assert.ok(html.includes(`<h2 id="slide-1-title">Welcome ${escaped}</h2>`))
      assert.ok(html.includes(`alt="A photo ${escaped}"`))
      assert.ok(html.includes(`aria-label="Clip ${escaped}"`))
      assert.ok(html.includes(`<p>Say hello ${escaped}</p>`))
      assert.ok(html.includes('<th scope="col">Head &lt;b&gt;</th>'))
      assert.ok(html.includes('<li>[bad](javascript:alert(3))</li>'), 'an unsafe link stays text')
      assert.ok(text('imsmanifest.xml').includes(`<title>Safety 101 ${escaped}</title>`))
    })

    test('accessible structure: language, headings, alt text, labelled regions, live counter', () => {
      const html = text('index.html')
      assert.match(html, /<html lang="en"/)
      assert.equal(html.match(/<h1[ >]/g)?.length, 1)
      const sections = [
        ...html.matchAll(/<section [^>]*id="(slide-\d+)"[^>]*aria-labelledby="([^"]+)"/g),
      ]
      assert.equal(sections.length, 3)
      for (const [, id, label] of sections) {
        assert.equal(label, `${id}-title`)
        assert.match(html, new RegExp(`<h2 id="${label}">`))
      }
      assert.ok(html.includes('<h2 id="slide-3-title">Slide 3</h2>'), 'an untitled slide is named')
      for (const img of html.match(/<img [^>]*>/g) ?? []) assert.match(img, / alt="[^"]*"/, img)
      assert.match(html, /<img src="assets\/s002-img1-streamed.png" alt=""/, 'decorative image')
      assert.match(
        html,
        /<p class="counter" aria-live="polite" aria-atomic="true">Slide 1 of 3<\/p>/,
      )
      assert.match(html, /<nav id="toc" class="toc" aria-label="Table of contents">/)
      assert.equal(html.match(/<li><a href="#slide-\d" data-index="\d">/g)?.length, 3)
      assert.match(html, /role="progressbar"[^>]*aria-valuemax="3"/)
      for (const button of html.match(/<button [^>]*>/g) ?? [])
        assert.match(button, /type="button"/)
      assert.match(
        html,
        /class="bar-button text-toggle" aria-pressed="false"/,
        'rendered slides have a text version',
      )
      assert.match(html, /<div class="slide-picture"><img src="assets\/s003-slide.jpg" alt=""/)
      assert.match(html, /<div class="slide-text slide-text-alt">/)
      const css = text('player.css')
      assert.match(css, /:focus-visible \{ outline: 3px solid/)
      assert.match(css, /@media \(prefers-reduced-motion: no-preference\)/)
      assert.match(css, /@media \(max-width: 47.99em\)/)
    })

    test('course.json describes the slides for search and tools', () => {
      const course = JSON.parse(text('course.json')) as {
        title: string
        scormVersion: string
        slides: { title: string; text: string; html: string; images: { src: string }[] }[]
      }
      assert.equal(course.title, `Safety 101 ${HOSTILE}`)
      assert.equal(course.scormVersion, version === '2004' ? '2004 4th Edition' : '1.2')
      assert.equal(course.slides.length, 3)
      assert.ok(course.slides[0]?.text.includes('- one\n  - nested site'))
      assert.doesNotMatch(course.slides[0]?.html ?? '', /<script|<img src=x/)
      assert.ok(files.has(course.slides[0]?.images[0]?.src ?? ''))
    })

    test('player.js is one plain browser script for the version the page names', () => {
      assert.match(text('index.html'), new RegExp(`<body data-scorm-version="${version}"`))
      const js = text('player.js')
      assert.doesNotThrow(() => new Script(js, { filename: 'player.js' }))
      assert.doesNotMatch(js, /\brequire\(|\bimport\s|\bexport\s|process\.env/)
      assert.match(js, /API_1484_11/)
      assert.match(js, /LMSInitialize/)
      assert.doesNotMatch(
        js,
        /[^\t\n\r\x20-\x7e]/,
        'ASCII only: content is served without a charset',
      )
    })
  })
}
