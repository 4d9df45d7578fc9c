import type { FastifyInstance } from 'fastify'
import type { Config } from '../../config.ts'
import { htmlShell, pageCsp, pageHeaders } from '../plugins/security-headers.ts'

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * `/` on the content origin: a short page saying what this origin is and where the API and the
 * dashboard are, instead of a JSON 404 for someone who opens it in a browser (issue 12, "the
 * first ten minutes"). No scripts, no styles: the strictest page CSP.
 */
export function contentHomeRoute(app: FastifyInstance, config: Config): void {
  const dashboard = `${config.publicUrl.replace(/\/$/, '')}/dashboard/`
  const docs = `${config.publicUrl.replace(/\/$/, '')}/api/docs`
  const page = htmlShell({
    head: '',
    body: [
      '<h1>Courseport content origin</h1>',
      '<p>This address serves the files of launched courses to learners; it has nothing to show',
      'on its own. Courses are launched through the API, which gives each learner a link here.</p>',
      `<p>Dashboard: <a href="${escapeHtml(dashboard)}">${escapeHtml(dashboard)}</a><br>`,
      `API reference: <a href="${escapeHtml(docs)}">${escapeHtml(docs)}</a></p>`,
    ].join('\n'),
  })
  app.get('/', { schema: { hide: true } }, async (_request, reply) =>
    reply.headers(pageHeaders(pageCsp([]))).send(page),
  )
}
