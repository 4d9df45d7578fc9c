/**
 * Answers a CTS delivery's UI questions ("Did the LMS provide an enabled Continue control?",
 * "…a Table of Contents that includes Activity 5 as selectable?") from the engine's `uiState`,
 * the way the player renders it: a hidden control counts as not enabled.
 */
import type { UiState } from '../../../../../src/modules/scorm/sequencing/index.ts'

export interface UiCheck {
  question: string
  subject: string | null
  expected: boolean
}

/** Null when the engine's UI state gives the expected answer, else what it said. */
export function judgeUiCheck(ui: UiState, check: UiCheck): string | null {
  const actual = answer(ui, check)
  if (actual === undefined) return `unknown question ${check.question}@${check.subject}`
  if (actual === check.expected) return null
  return `${check.question}${check.subject ? `@${check.subject}` : ''}: engine says ${actual}, expected ${check.expected}`
}

function answer(ui: UiState, check: UiCheck): boolean | undefined {
  const [control, adjective] = check.question.split('.')
  if (control === 'continue' || control === 'previous') {
    const c = ui[control]
    const shownEnabled = c.enabled && !c.hidden
    return adjective === 'enabled' ? shownEnabled : !shownEnabled
  }
  // "the activity that corresponds to the root of <package title>" names the root entry.
  const entry = check.subject?.startsWith('the activity that corresponds to the root')
    ? ui.toc[0]
    : ui.toc.find((e) => e.title.trim() === check.subject?.trim())
  switch (check.question) {
    case 'toc.enabled':
      return ui.tocEnabled
    case 'toc.visible':
      return entry?.visible ?? false
    case 'toc.enabled.selectable':
      return ui.tocEnabled && entry?.visible === true && entry.selectable
    case 'click.button':
      // SX-09's test page asks the tester to press its own button: nothing of the LMS to judge.
      return check.expected
    default:
      return undefined
  }
}
