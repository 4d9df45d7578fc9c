/**
 * The wrapper SCO (courseport-dispatch.js in the dispatch zip), running in the client LMS on the
 * LMS's origin. It finds the LMS's API, reads the learner, opens our dispatch frame and relays
 * what the hosted course reports into the LMS (docs/dispatch.md).
 */

import { connectLms, type LmsConnection } from './lms-connection.ts'
import {
  LEARNER_ELEMENTS,
  type LmsWrite,
  lmsWrites,
  readLearnerKey,
  suspendDataWithKey,
} from './lms-values.ts'
import {
  type BridgeState,
  exactOrigin,
  type LmsVersion,
  message,
  readMessage,
  readState,
} from './protocol.ts'

interface WrapperConfig {
  frameUrl: string
  contentOrigin: string
  scormVersion: LmsVersion
}

const TEXT = {
  damaged: 'This course package is damaged. Please ask your training administrator.',
  noLms: 'This course must be opened from your learning platform. Please open it from there again.',
  noStart: 'Your learning platform did not let this course start. Please close it and try again.',
}

function readConfig(doc: Document): WrapperConfig | null {
  try {
    const raw = JSON.parse(doc.getElementById('courseport-dispatch')?.textContent ?? '') as Record<
      string,
      unknown
    >
    const contentOrigin = exactOrigin(String(raw.contentOrigin))
    const frameUrl = String(raw.frameUrl)
    const version = raw.scormVersion
    if (!contentOrigin || new URL(frameUrl).origin !== contentOrigin) return null
    if (version !== '1.2' && version !== '2004') return null
    return { frameUrl, contentOrigin, scormVersion: version }
  } catch {
    return null
  }
}

function show(doc: Document, text: string): void {
  const box = doc.getElementById('cp-message')
  if (box) {
    box.textContent = text
    box.hidden = false
  }
  const stage = doc.getElementById('cp-stage')
  if (stage) stage.hidden = true
}

function write(lms: LmsConnection, writes: readonly LmsWrite[]): void {
  for (const [element, value] of writes) lms.set(element, value)
}

// Long on purpose: one closure holds the LMS connection and the bridge state every message handler
// uses.
export function startWrapper(win: Window): void {
  const doc = win.document
  const config = readConfig(doc)
  if (!config) {
    show(doc, TEXT.damaged)
    return
  }
  const version = config.scormVersion
  const lms = connectLms(win, version)
  if (!lms) {
    show(doc, TEXT.noLms)
    return
  }
  if (!lms.initialize()) {
    show(doc, TEXT.noStart)
    return
  }
  const names = LEARNER_ELEMENTS[version]
  const learner = { id: lms.get(names.id), name: lms.get(names.name) }
  // Proves to our server that this is the same LMS registration as before (docs/dispatch.md).
  let learnerKey = readLearnerKey(lms.get(names.suspendData))
  const startedAt = Date.now()

  const frame = doc.createElement('iframe')
  frame.src = config.frameUrl
  frame.title = doc.title || 'Course'
  frame.allow = 'fullscreen; autoplay; clipboard-write'
  frame.setAttribute('allowfullscreen', '')
  ;(doc.getElementById('cp-stage') ?? doc.body).appendChild(frame)

  let last: BridgeState | null = null
  let finished = false

  /** Ends the LMS session once: last values, time (ours if the course gave none), exit. */
  const finish = () => {
    if (finished) return
    finished = true
    const state = last
    const seconds = state?.sessionSeconds ?? (Date.now() - startedAt) / 1000
    const done = state?.completion === 'completed' || state?.success === 'passed'
    const exit = state?.ended
      ? (state.exit ?? 'normal')
      : (state?.exit ?? (done ? 'normal' : 'suspend'))
    if (state)
      write(lms, lmsWrites(version, { ...state, sessionSeconds: seconds, exit }, learnerKey))
    else write(lms, lmsWrites(version, emptyState(seconds), learnerKey))
    lms.commit()
    lms.finish()
  }

  win.addEventListener('message', (event: MessageEvent) => {
    // Only the frame we opened, on the content origin baked into this package.
    if (event.origin !== config.contentOrigin || event.source !== frame.contentWindow) return
    const msg = readMessage(event.data)
    if (!msg || finished) return
    switch (msg.kind) {
      case 'ready':
        frame.contentWindow?.postMessage(
          message({ kind: 'hello', learner, lms: version, key: learnerKey }),
          config.contentOrigin,
        )
        return
      case 'launching': {
        const status = lms.get(names.status)
        const fresh = status === 'not attempted' || status === 'unknown' || status === ''
        if (fresh) lms.set(names.status, 'incomplete')
        if (msg.key) {
          learnerKey = msg.key
          lms.set(names.suspendData, suspendDataWithKey(version, learnerKey, ''))
        }
        if (fresh || msg.key) lms.commit()
        return
      }
      case 'state': {
        const state = readState(msg.state)
        if (!state) return
        last = state
        write(lms, lmsWrites(version, state, learnerKey))
        lms.commit()
        if (state.ended) finish()
        return
      }
      case 'refused':
      case 'hello':
        return
    }
  })
  win.addEventListener('pagehide', finish)
  win.addEventListener('beforeunload', finish)
}

function emptyState(seconds: number): BridgeState {
  return {
    completion: 'unknown',
    success: 'unknown',
    score: { scaled: null, raw: null, min: null, max: null },
    progress: null,
    sessionSeconds: seconds,
    location: null,
    suspendData: null,
    exit: null,
    ended: false,
  }
}

startWrapper(window)
