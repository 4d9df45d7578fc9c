/**
 * The dispatch frame page (GET /dispatch/{id}/frame on the content origin), inside the wrapper.
 * It learns the client LMS's origin ONLY from `event.origin` of the wrapper's hello — never
 * from the URL — asks our server to launch, then becomes the player (or shows why not).
 */
import { BRIDGE_HASH_PARAM, message, readMessage } from './protocol.ts'

const READY_EVERY_MS = 250
/** Without a hello by then, the page was not opened by a working wrapper. */
const HELLO_WAIT_MS = 15_000

interface Shown {
  title: string
  text?: string
  busy?: boolean
  retry?: () => void
}

function render(doc: Document, shown: Shown): void {
  const title = doc.getElementById('cp-title')
  const text = doc.getElementById('cp-text')
  const button = doc.getElementById('cp-retry') as HTMLButtonElement | null
  if (title) title.textContent = shown.title
  if (text) text.textContent = shown.text ?? ''
  doc.body.classList.toggle('cp-busy', shown.busy === true)
  if (button) {
    button.hidden = !shown.retry
    button.onclick = shown.retry ? () => shown.retry?.() : null
  }
}

const TITLES: Record<string, string> = {
  paused: 'This course is paused',
  expired: 'This course has ended',
  archived: 'This course is not available',
  deleted: 'This course is not available',
  license_limit: 'No places left',
  domain_not_allowed: 'This course cannot be opened here',
  no_learner: 'We could not tell who you are',
  package_unavailable: 'This course cannot be opened right now',
  rate_limited: 'Please try again in a minute',
  wrapper_revoked: 'This copy of the course has been replaced',
}

// Long on purpose: one message handler's closure state is shared by every step of the frame's
// handshake.
export function startFrame(win: Window): void {
  const doc = win.document
  const dispatchId = /^\/dispatch\/([^/]+)\/frame\/?$/.exec(win.location.pathname)?.[1] ?? ''
  const token = new URLSearchParams(win.location.search).get('token') ?? ''
  if (win.parent === win || !dispatchId || !token) {
    render(doc, {
      title: 'Open this course from your learning platform',
      text: 'This page only works inside the course package your organisation installed.',
    })
    return
  }
  let greeted = false
  const tell = (origin: string, body: Parameters<typeof message>[0]) => {
    if (origin !== 'null') win.parent.postMessage(message(body), origin)
  }

  const launch = async (origin: string, learner: { id: string; name: string }, key: string) => {
    render(doc, { title: 'Opening the course…', busy: true })
    let response: Response
    let body: Record<string, unknown> = {}
    try {
      response = await win.fetch(`/dispatch/${encodeURIComponent(dispatchId)}/launch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          token,
          origin,
          learner_id: learner.id,
          learner_name: learner.name,
          ...(key && { learner_key: key }),
        }),
        cache: 'no-store',
      })
      body = (await response.json().catch(() => ({}))) as Record<string, unknown>
    } catch {
      render(doc, {
        title: 'The course could not be reached',
        text: 'Check your connection and try again.',
        retry: () => void launch(origin, learner, key),
      })
      return
    }
    if (response.ok && typeof body.launch_url === 'string') {
      // A new registration's key goes to the wrapper (the LMS's origin only), which keeps it in
      // the LMS: the next launch presents it to resume this learner (docs/dispatch.md).
      const issued = typeof body.learner_key === 'string' ? body.learner_key : undefined
      tell(origin, { kind: 'launching', ...(issued && { key: issued }) })
      const url = new URL(body.launch_url, win.location.href)
      url.hash = `${BRIDGE_HASH_PARAM}=${encodeURIComponent(origin)}`
      win.location.replace(url.href)
      return
    }
    const error = (body.error ?? {}) as { message?: unknown; details?: { reason?: unknown } }
    const reason = typeof error.details?.reason === 'string' ? error.details.reason : ''
    const text =
      typeof error.message === 'string' && error.message
        ? error.message
        : 'Please close the course and open it again from your learning platform.'
    if (response.status >= 500) {
      render(doc, {
        title: 'Something went wrong',
        text: 'Please try again in a moment.',
        retry: () => void launch(origin, learner, key),
      })
      return
    }
    render(doc, { title: TITLES[reason] ?? 'This course cannot be opened', text })
    tell(origin, { kind: 'refused', reason, message: text })
  }

  win.addEventListener('message', (event: MessageEvent) => {
    // Only the window that framed us speaks for the LMS; its origin is whatever the browser says.
    if (greeted || event.source !== win.parent) return
    const msg = readMessage(event.data)
    if (msg?.kind !== 'hello') return
    greeted = true
    void launch(event.origin, msg.learner, msg.key ?? '')
  })

  // The wrapper may not listen yet when we load: say "ready" until it answers. It carries
  // nothing, so it may go to any origin (we do not know the LMS's yet).
  const started = Date.now()
  const timer = win.setInterval(() => {
    if (greeted) return win.clearInterval(timer)
    if (Date.now() - started > HELLO_WAIT_MS) {
      win.clearInterval(timer)
      render(doc, {
        title: 'The course could not start',
        text: 'Please close it and open it again from your learning platform.',
      })
      return
    }
    win.parent.postMessage(message({ kind: 'ready' }), '*')
  }, READY_EVERY_MS)
  win.parent.postMessage(message({ kind: 'ready' }), '*')
}

startFrame(window)
