/**
 * The generated player's layout in Chromium, served as plain static files (as any LMS serves a
 * package): at phone to desktop widths a slide's picture shows whole, and nothing pushes the
 * page sideways, even with the "Text version" button of a converted deck and a long title.
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { extname, join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import {
  generateCourse,
  parseSlideMarkdown,
} from '../../../src/modules/publish/course-generator/index.ts'
import { isSkip, launchBrowser } from '../../e2e/helpers/browser.ts'
import { solidPng } from '../../unit/office/office.helper.ts'
import { readZip } from '../../unit/publish/course-zip.helper.ts'

/** A 4:3 slide picture. */
const SLIDE = solidPng(1280, 960)

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.png': 'image/png',
  '.json': 'application/json',
}

describe('generated player layout', () => {
  let dir = ''
  let server: Server
  let url = ''
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cp-layout-'))
    const zip = join(dir, 'course.zip')
    await generateCourse(
      {
        title: 'Workplace safety essentials for every new member of staff, part one',
        scormVersion: '2004',
        slides: Array.from({ length: 120 }, (_, i) => ({
          title: `Slide ${i + 1}`,
          blocks: parseSlideMarkdown('- first point\n- second point'),
          images: [],
          renderedImage: { contentType: 'image/png', bytes: SLIDE },
        })),
      },
      zip,
    )
    const files = await readZip(zip)
    server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0]?.slice(1) || 'index.html'
      const body = files.get(path)
      if (!body) return void res.writeHead(404).end()
      res.setHeader('content-type', TYPES[extname(path)] ?? 'application/octet-stream')
      res.end(body)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/index.html`
  })
  after(async () => {
    await new Promise((resolve) => server.close(resolve))
    await rm(dir, { recursive: true, force: true })
  })

  for (const width of [320, 390, 768, 1280]) {
    test(`${width} px wide: the whole slide shows, nothing scrolls sideways, controls on screen`, async (t) => {
      const browser = await launchBrowser({ viewport: { width, height: 800 } })
      if (isSkip(browser)) return t.skip(browser.skip)
      try {
        const page = await browser.page()
        await page.goto(url)
        await page.click('.nav-button.next')
        await page.waitForFunction(() =>
          document.querySelector('.counter')?.textContent?.startsWith('Slide 2 of 120'),
        )
        const layout = await page.evaluate(() => {
          const box = (selector: string) => {
            const r = (document.querySelector(selector) as HTMLElement).getBoundingClientRect()
            return { left: r.left, right: r.right }
          }
          const picture = document
            .querySelector('section.slide:not([hidden]) .slide-picture img')
            ?.getBoundingClientRect()
          return {
            picture: picture && { top: picture.top, bottom: picture.bottom, width: picture.width },
            controlsTop: (
              document.querySelector('.controls') as HTMLElement
            ).getBoundingClientRect().top,
            scrollWidth: document.documentElement.scrollWidth,
            clientWidth: document.documentElement.clientWidth,
            boxes: ['.toc-toggle', '.text-toggle', '.counter', '.previous', '.next'].map(box),
          }
        })
        assert.ok(layout.scrollWidth <= layout.clientWidth, JSON.stringify(layout))
        const { picture, controlsTop } = layout
        assert.ok(
          picture && picture.width > 100,
          `the slide picture shows: ${JSON.stringify(picture)}`,
        )
        assert.ok(picture.bottom <= controlsTop, 'the whole slide shows without scrolling')
        for (const b of layout.boxes) {
          assert.ok(b.left >= 0 && b.right <= width, `off screen: ${JSON.stringify(b)}`)
        }
      } finally {
        await browser.close()
      }
    })
  }
})
