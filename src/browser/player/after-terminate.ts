/**
 * What the player does once a SCO has terminated (Terminate / LMSFinish), from the pending
 * navigation request and the exit value the data model reports (TerminateSummary).
 */
import type { TerminateSummary } from '../../modules/scorm/data-model/index.ts'

export type EndReason = 'exit' | 'exitAll' | 'suspendAll' | 'abandon' | 'abandonAll'

export type AfterTerminate =
  | { readonly kind: 'continue' }
  | { readonly kind: 'previous' }
  | { readonly kind: 'choice'; readonly target: string }
  | { readonly kind: 'jump'; readonly target: string }
  /** The learner's session with the course is over: show the end screen. */
  | { readonly kind: 'end'; readonly reason: EndReason }
  /** Nothing requested: show the navigation controls and let the learner decide. */
  | { readonly kind: 'stay' }

const TARGETED = /^\{target=([^}]+)\}(choice|jump)$/

/**
 * SCORM 2004: the SCO's adl.nav.request wins; without one, cmi.exit "time-out" and "logout" end
 * the course like exitAll (SN book, "Terminate" with cmi.exit), and "suspend"/"normal"/"" leave the
 * learner to navigate.
 * SCORM 1.2 has no navigation requests: "logout" and "time-out" end the course; a SCO that is
 * completed or passed and not suspended continues to the next item (the way multi-SCO 1.2 courses
 * expect the LMS to advance); anything else (failed, incomplete, suspended) shows the controls.
 */
export function afterTerminate(version: '1.2' | '2004', summary: TerminateSummary): AfterTerminate {
  if (version === '1.2') return after12(summary)
  const request = summary.navRequest
  switch (request) {
    case 'continue':
    case 'previous':
      return { kind: request }
    case 'exit':
    case 'exitAll':
    case 'suspendAll':
    case 'abandon':
    case 'abandonAll':
      return { kind: 'end', reason: request }
  }
  const targeted = TARGETED.exec(request)
  if (targeted?.[1] && (targeted[2] === 'choice' || targeted[2] === 'jump')) {
    return { kind: targeted[2], target: targeted[1] }
  }
  if (summary.exit === 'time-out' || summary.exit === 'logout')
    return { kind: 'end', reason: 'exitAll' }
  return { kind: 'stay' }
}

function after12(summary: TerminateSummary): AfterTerminate {
  if (summary.exit === 'logout' || summary.exit === 'time-out') {
    return { kind: 'end', reason: 'exitAll' }
  }
  if (summary.exit === 'suspend') return { kind: 'stay' }
  const status = summary.state.values['cmi.core.lesson_status']
  return status === 'completed' || status === 'passed' ? { kind: 'continue' } : { kind: 'stay' }
}
