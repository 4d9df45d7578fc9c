/**
 * The player's navigation and tracking state machine, free of the DOM so it can be tested with
 * any object implementing the SCORM API. The learner resumes at the last slide viewed; each
 * slide change is recorded (location, slides seen, 2004 progress_measure) and committed; reaching
 * the last slide completes the course. Success status is never set: there is no assessment.
 * Without an API (or when Initialize fails) everything works, untracked.
 * Browser-safe: no node: imports.
 */
import type { ScormTarget } from '../course.types.ts'
import type { NavigationAction } from './keyboard.ts'
import { connectScorm, type ScormConnection } from './scorm-connection.ts'
import { cmiTimespan, isoDuration } from './session-time.ts'
import { decodeViewed, encodeViewed } from './viewed-slides.codec.ts'

export interface CourseSessionOptions {
  version: ScormTarget
  /** Number of slides (at least 1). */
  total: number
  /** The LMS's API object (see findScormApi); null runs the course without tracking. */
  api: object | null
  /** Clock in milliseconds for cmi.session_time. Default Date.now. */
  now?: () => number
}

export interface CourseSession {
  readonly total: number
  /** The API was found and accepted Initialize (until end()). */
  tracking(): boolean
  /** The slide shown, 0-based. After start it is the slide to resume at. */
  current(): number
  viewedCount(): number
  /** The learner has reached the last slide, now or in an earlier session. */
  completed(): boolean
  /** Moves to `index` (clamped to the course); false when nothing changed. */
  goTo(index: number): boolean
  navigate(action: NavigationAction): boolean
  /** Commits what is recorded, e.g. when the page goes to the background. */
  save(): void
  /** Sets the session time, commits and terminates; later calls do nothing. */
  end(): void
}

/** cmi.location holds the 1-based slide number. */
function slideFromLocation(location: string, total: number): number | null {
  if (!/^\d{1,9}$/.test(location)) return null
  const n = Number(location)
  return n >= 1 && n <= total ? n - 1 : null
}

const measure = (value: number) => String(Math.round(Math.min(1, Math.max(0, value)) * 1e7) / 1e7)

// Long on purpose: one closure over the session state (current slide, viewed, completed) that every
// method updates.
export function startCourseSession(options: CourseSessionOptions): CourseSession {
  const { version } = options
  const total = Math.max(1, Math.floor(options.total))
  const now = options.now ?? Date.now
  const startedAt = now()
  let conn: ScormConnection | null = options.api ? connectScorm(options.api, version) : null
  if (conn && !conn.initialize()) conn = null

  let current = 0
  const viewed = new Set<number>()
  let completed = false
  let reported = false

  if (conn) {
    const status = conn.get('completion')
    reported = status === 'completed' || (version === '1.2' && status === 'passed')
    completed = reported
    if (conn.get('entry') !== 'ab-initio') {
      current = slideFromLocation(conn.get('location'), total) ?? 0
      for (const i of decodeViewed(conn.get('suspendData'), total)) viewed.add(i)
    }
    if (!reported && (status === 'not attempted' || status === 'unknown' || status === ''))
      conn.set('completion', 'incomplete')
    // Suspend, so the next launch resumes this attempt where the learner left it.
    conn.set('exit', 'suspend')
  }

  const record = () => {
    viewed.add(current)
    if (current === total - 1) completed = true
    if (!conn) return
    conn.set('location', String(current + 1))
    conn.set('suspendData', encodeViewed(viewed, total))
    if (version === '2004') conn.set('progress', measure(viewed.size / total))
    if (completed && !reported) reported = conn.set('completion', 'completed')
    conn.commit()
  }
  record()

  const goTo = (index: number): boolean => {
    const target = Math.min(total - 1, Math.max(0, Math.trunc(index) || 0))
    if (target === current) return false
    current = target
    record()
    return true
  }

  return {
    total,
    tracking: () => conn !== null,
    current: () => current,
    viewedCount: () => viewed.size,
    completed: () => completed,
    goTo,
    navigate(action) {
      switch (action) {
        case 'next':
          return goTo(current + 1)
        case 'previous':
          return goTo(current - 1)
        case 'first':
          return goTo(0)
        case 'last':
          return goTo(total - 1)
      }
    },
    save() {
      conn?.commit()
    },
    end() {
      if (!conn) return
      const elapsed = now() - startedAt
      conn.set('sessionTime', version === '2004' ? isoDuration(elapsed) : cmiTimespan(elapsed))
      conn.commit()
      conn.terminate()
      conn = null
    },
  }
}
