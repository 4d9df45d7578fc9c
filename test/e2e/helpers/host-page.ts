/**
 * Another site that embeds a launch URL in an `<iframe>`, as an LMS or a customer's portal does.
 * It listens on 127.0.0.1 but is opened as `http://localhost:{port}`: a different host from the
 * content origin (`127.0.0.1`), so a different site, and the player runs in a cross-site frame.
 */
import { createServer } from 'node:http'
import { freePort } from './live-server.ts'

export interface HostPage {
  /** The host page embedding `launchUrl`. */
  pageUrl(launchUrl: string): string
  close(): Promise<void>
}

const escapeAttribute = (value: string) =>
  value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;')

export async function serveHostPage(): Promise<HostPage> {
  const port = await freePort()
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', `http://localhost:${port}`)
    const launch = url.searchParams.get('launch')
    if (url.pathname !== '/course' || !launch) {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    response.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Another LMS</title></head>
<body style="margin:0">
<h1 style="font:16px sans-serif;margin:8px">Another LMS</h1>
<iframe id="course" title="Course" src="${escapeAttribute(launch)}"
  style="width:100%;height:calc(100vh - 48px);border:0" allow="fullscreen; autoplay"></iframe>
</body></html>`)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', resolve)
  })
  return {
    pageUrl: (launchUrl) =>
      `http://localhost:${port}/course?launch=${encodeURIComponent(launchUrl)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
