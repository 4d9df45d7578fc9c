import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { packageDownloadUrl } from '../../../src/modules/publish/package-download.token.ts'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { type Receiver, startReceiver } from '../../unit/http-egress/tls-receiver.ts'
import { child, children, PNG, parseManifest } from '../../unit/publish/course-zip.helper.ts'
import { downloadPackage } from '../conversions/conversion.helper.ts'

const CA_FILE = fileURLToPath(new URL('../../fixtures/tls/ca.crt', import.meta.url))
const HOSTILE_TITLE = '"><svg onload=alert(1)> & <b>Course</b>'
const HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)> [x](javascript:alert(3))'

/** Test images: the receiver answers by path. */
function imageServer(): Promise<Receiver> {
  return startReceiver((req, res) => {
    const send = (status: number, type: string | null, body: Buffer | string) => {
      if (type) res.setHeader('content-type', type)
      res.writeHead(status).end(body)
    }
    switch (req.url) {
      case '/pic.png':
        return send(200, 'image/png', PNG)
      case '/page.html':
        return send(200, 'text/html', '<html>hello</html>')
      case '/fake.png':
        return send(200, 'image/png', '<html>not a picture</html>')
      case '/big.png':
        return send(200, 'image/png', Buffer.concat([PNG, Buffer.alloc(8192)]))
      case '/moved.png':
        res.setHeader('location', '/pic.png')
        return send(302, null, '')
      default:
        return send(404, 'text/plain', 'no')
    }
  })
}

describeEachDatabase('quick publish', (database) => {
  let t: TestApp
  let tenant: TestTenant
  let images: Receiver
  let base = ''
  before(async () => {
    images = await imageServer()
    base = `https://localhost:${images.port}`
    t = await createTestApp(database(), {
      env: {
        EGRESS_ALLOW_ADDRESSES: '127.0.0.1,::1',
        EGRESS_CA_FILE: CA_FILE,
        QUICK_PUBLISH_MAX_IMAGE_BYTES: '4096',
      },
    })
    tenant = await t.createTenant()
  })
  after(async () => {
    await t.close()
    await images.close()
  })

  const publish = (payload: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/quick-publish',
      headers: { ...bearer(tenant.testKey), ...headers },
      payload: payload as Record<string, unknown>,
    })
  const course = (overrides: Record<string, unknown> = {}) => ({
    title: 'Onboarding',
    slides: [
      { title: 'Welcome', content: 'Hello **team**' },
      { title: 'Rules', content: '- one\n- two' },
      { title: 'Done', content: 'Thanks' },
    ],
    ...overrides,
  })

  test("201 with the spec's fields; listed, downloadable by its link, launchable", async () => {
    const res = await publish(course())
    assert.equal(res.statusCode, 201, res.body)
    const body = res.json()
    assert.match(body.package_id, /^pkg_/)
    assert.equal(body.title, 'Onboarding')
    assert.equal(body.scorm_version, '2004')
    assert.equal(body.slide_count, 3)
    assert.ok(!Number.isNaN(Date.parse(body.created_at)))
    assert.match(body.launch_url, /^http:\/\/127\.0\.0\.1:18081\/launch\/ses_\w+\?token=/)
    assert.ok(body.package_url.startsWith('http://127.0.0.1:18080/downloads/'))

    const list = await t.app.inject({ url: '/api/v1/packages', headers: bearer(tenant.testKey) })
    assert.ok(list.json().packages.some((p: { id: string }) => p.id === body.package_id))
    const byLink = await t.app.inject({ url: new URL(body.package_url).pathname })
    assert.equal(byLink.statusCode, 200)
    assert.equal(byLink.headers['content-type'], 'application/zip')
    const { zip, files } = await downloadPackage(t, tenant.testKey, body.package_id)
    assert.deepEqual(byLink.rawPayload, zip)
    const manifest = parseManifest((files.get('imsmanifest.xml') as Buffer).toString('utf8'))
    const metadata = child(child(manifest, 'manifest'), 'metadata')
    assert.equal(String(child(metadata, 'schemaversion')), '2004 4th Edition')
    const sessions = await t.app.inject({
      url: `/api/v1/sessions?package_id=${body.package_id}`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(sessions.json().sessions[0]?.learner_id, 'courseport-preview')
  })

  test('the markdown subset is rendered; nothing from the request becomes markup', async () => {
    const res = await publish({
      title: HOSTILE_TITLE,
      slides: [
        {
          title: '<i>Slide</i> one',
          content: `Some **bold** and *italic* text\n\n- first\n  - nested **strong**\n- second\n\n${HOSTILE}`,
        },
      ],
    })
    assert.equal(res.statusCode, 201, res.body)
    const { files } = await downloadPackage(t, tenant.testKey, res.json().package_id)
    const html = (files.get('index.html') as Buffer).toString('utf8')
    assert.match(html, /Some <strong>bold<\/strong> and <em>italic<\/em> text/)
    assert.match(
      html,
      /<ul>\s*<li>first\s*<ul>\s*<li>nested <strong>strong<\/strong><\/li>\s*<\/ul>\s*<\/li>\s*<li>second<\/li>\s*<\/ul>/,
    )
    assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'))
    assert.ok(html.includes('&lt;img src=x onerror=alert(2)&gt;'))
    assert.ok(html.includes('&lt;i&gt;Slide&lt;/i&gt; one'))
    assert.ok(html.includes('[x](javascript:alert(3))'), 'a non-web link stays literal text')
    for (const bad of ['<script>alert', '<img src=x', '<svg', 'href="javascript', '<i>Slide']) {
      assert.ok(!html.includes(bad), `"${bad}" reached the page as markup`)
    }
    assert.equal(html.match(/<script\b/g)?.length, 1, 'only the player script')
    const manifest = parseManifest((files.get('imsmanifest.xml') as Buffer).toString('utf8'))
    const org = children(child(child(manifest, 'manifest'), 'organizations'), 'organization')[0]
    assert.equal(String(child(org, 'title')), HOSTILE_TITLE, 'the title is XML-escaped, intact')
  })

  test('SCORM 1.2 on request', async () => {
    const res = await publish(course({ scorm_version: '1.2' }))
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().scorm_version, '1.2')
    const pkg = await t.app.inject({
      url: `/api/v1/packages/${res.json().package_id}`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(pkg.json().package.scorm_version, '1.2')
    assert.equal(pkg.json().versions[0].edition, '1.2')
  })

  test('image_url is fetched once through the guard and carried inside the package', async () => {
    const hitsBefore = images.hits.length
    const res = await publish(
      course({
        slides: [
          {
            title: 'Map',
            content: 'See the map',
            image_url: `${base}/pic.png`,
            image_alt: 'Site map',
          },
          { title: 'Again', content: 'Same picture', image_url: `${base}/pic.png` },
        ],
      }),
    )
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(images.hits.length - hitsBefore, 1, 'one fetch for a URL used twice')
    const { files } = await downloadPackage(t, tenant.testKey, res.json().package_id)
    const pictures = [...files.entries()].filter(([name]) => /^assets\/.*\.png$/.test(name))
    assert.equal(pictures.length, 2)
    for (const [, bytes] of pictures) assert.deepEqual(bytes, PNG)
    const html = (files.get('index.html') as Buffer).toString('utf8')
    assert.match(html, /<img src="assets\/s001-img1-pic\.png" alt="Site map"/)
    assert.match(html, /<img src="assets\/s002-img1-pic\.png" alt="Again"/)
    assert.doesNotMatch(html, /https:\/\/localhost/, 'no reference to the network at play time')
  })

  test('an image that cannot be used fails the request, naming the slide and the URL', async () => {
    const cases: Array<[string, string, RegExp]> = [
      [`${base}/missing.png`, 'http_status', /HTTP 404/],
      [`${base}/page.html`, 'unsupported_content_type', /content type text\/html/],
      [`${base}/fake.png`, 'not_an_image', /not a PNG, JPEG, GIF, WebP or AVIF/],
      [`${base}/big.png`, 'too_large', /larger than 4 KiB/],
      [`${base}/moved.png`, 'http_status', /HTTP 302 \(redirects are not followed\)/],
      [`http://localhost:${images.port}/pic.png`, 'invalid_url', /must use https/],
      ['https://10.0.0.1/pic.png', 'blocked_address', /private network/],
      ['https://169.254.169.254/latest/meta-data', 'blocked_address', /metadata/],
    ]
    const before = (
      await t.app.inject({ url: '/api/v1/packages?limit=200', headers: bearer(tenant.testKey) })
    ).json().packages.length
    for (const [url, reason, message] of cases) {
      const res = await publish(
        course({
          slides: [
            { title: 'Text', content: 'x' },
            { title: 'Pic', content: 'y', image_url: url },
          ],
        }),
      )
      assert.equal(res.statusCode, 422, `${url}: ${res.body}`)
      const { error } = res.json()
      assert.equal(error.code, 'unprocessable')
      assert.ok(
        error.message.startsWith(`Slide 2: the image at ${url} could not be used:`),
        error.message,
      )
      assert.match(error.message, message)
      assert.deepEqual(error.details, { slide: 2, image_url: url, reason })
    }
    const afterCount = (
      await t.app.inject({ url: '/api/v1/packages?limit=200', headers: bearer(tenant.testKey) })
    ).json().packages.length
    assert.equal(afterCount, before, 'no package was created')
  })

  test('package_url stops working when it expires and cannot be altered', async () => {
    const res = await publish(course())
    const path = new URL(res.json().package_url).pathname
    const token = path.split('/').pop() as string
    const tampered = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`
    const bad = await t.app.inject({ url: `/downloads/${tampered}` })
    assert.equal(bad.statusCode, 404)
    const {
      t: tenantId,
      m,
      p,
      v,
    } = JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString())
    const expired = packageDownloadUrl(
      '',
      t.ctx.config.secretKey,
      { t: tenantId, m, p, v },
      new Date(Date.now() - 1000),
    )
    const gone = await t.app.inject({ url: expired })
    assert.equal(gone.statusCode, 403)
    assert.match(gone.json().error.message, /expired/)
  })

  test('invalid requests are refused with 400', async () => {
    const cases: unknown[] = [
      { title: 'x', slides: [] },
      { slides: [{ title: 'a', content: 'b' }] },
      { title: 'x', slides: [{ title: 'a' }] },
      { title: 'x', slides: [{ title: 'a', content: 'b' }], scorm_version: '3' },
      { title: '   ', slides: [{ title: 'a', content: 'b' }] },
    ]
    for (const payload of cases) {
      const res = await publish(payload)
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`)
    }
  })

  test('the same Idempotency-Key gives the same package', async () => {
    const first = await publish(course(), { 'idempotency-key': 'qp-1' })
    const second = await publish(course(), { 'idempotency-key': 'qp-1' })
    assert.equal(second.statusCode, 201)
    assert.equal(second.json().package_id, first.json().package_id)
    assert.equal(second.headers['idempotent-replayed'], 'true')
  })
})
