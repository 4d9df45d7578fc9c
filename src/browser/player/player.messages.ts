/** What the learner reads when something ends or fails. Plain words, no codes up front. */
import type { EndReason } from './after-terminate.ts'
import { RuntimeCallError } from './runtime.client.ts'
import type { Message, ScreenAction } from './stage.view.ts'

export function startErrorMessage(err: unknown, retry?: ScreenAction): Message {
  const status = err instanceof RuntimeCallError ? err.status : -1
  if (status === 400 || status === 401 || status === 403) {
    return {
      title: 'This launch link cannot be used.',
      text: 'It is incomplete or has expired. Go back to where you started the course and open it again.',
    }
  }
  if (status === 404) {
    return {
      title: 'This course session was not found.',
      text: 'Go back to where you started the course and open it again.',
    }
  }
  return {
    title: 'The course could not be opened.',
    text: unreachable(err),
    ...(retry ? { actions: [retry] } : {}),
  }
}

export function openErrorMessage(
  err: unknown,
  itemTitle: string,
  retry: ScreenAction,
  reload: () => void,
): Message {
  const status = err instanceof RuntimeCallError ? err.status : -1
  if (status === 401) {
    return {
      title: 'Your session has expired.',
      text: 'Reload the page to continue. Your progress so far is kept.',
      actions: [{ label: 'Reload', primary: true, run: reload }],
    }
  }
  return { title: `“${itemTitle}” could not be opened.`, text: unreachable(err), actions: [retry] }
}

/** Where the learner's work stands when the course is left. */
export interface LeftState {
  /** The server says the course is completed. */
  readonly complete: boolean
  /** Every commit reached the server. */
  readonly saved: boolean
}

const NOT_SAVED =
  'Your latest progress has not reached the server yet. Keep this window open for a moment; if this message stays, reload the page.'

/** The end screen: after the SCO's exit request, or the player's Exit button (reason 'exit'). */
export function endMessage(reason: EndReason, left: LeftState): Message {
  if (!left.saved) return { title: 'Saving your progress…', text: NOT_SAVED }
  if (left.complete) return { title: 'Course complete', text: 'You can close this window.' }
  if (reason === 'suspendAll') {
    return {
      title: 'Your progress is saved.',
      text: 'You can close this window. Next time you open the course, you continue where you left off.',
    }
  }
  return {
    title: 'You have left the course.',
    text: 'Your progress is saved. You can close this window.',
  }
}

/** The sequencer said no to a move (SCORM 2004): the course's rules do not allow it now. */
export function refusedMessage(next?: ScreenAction): Message {
  return {
    title: 'That step is not available now.',
    text: 'The course decides the order of its parts. Choose another way on.',
    ...(next ? { actions: [next] } : {}),
  }
}

/** Nothing is being shown and the course goes on: the learner picks from the contents. */
export function pickMessage(hasContents: boolean): Message {
  return hasContents
    ? { title: 'Choose a part to open.', text: 'Pick one from the contents.' }
    : { title: 'There is nothing to open now.', text: 'You can close this window.' }
}

/** The notice after a SCO ended without asking for anything. */
export function finishedMessage(
  next: ScreenAction | undefined,
  several: boolean,
  complete: boolean,
): Message {
  if (next) {
    return {
      title: complete ? 'Course complete. This part has ended.' : 'This part has ended.',
      actions: [next],
    }
  }
  if (complete) return { title: 'Course complete', text: 'You can close this window.' }
  // Not "the last part": under SCORM 2004 sequencing, no Continue may only mean the course
  // does not flow, with parts still to pick.
  if (several) {
    return {
      title: 'This part has ended.',
      text: 'Pick a part from the contents, or close this window.',
    }
  }
  return { title: 'The lesson has ended.', text: 'You can close this window.' }
}

function unreachable(err: unknown): string {
  if (err instanceof RuntimeCallError && (err.status === 0 || err.status >= 500)) {
    return 'The server could not be reached. Check your connection and try again.'
  }
  return err instanceof Error && err.message ? err.message : 'Something went wrong.'
}

/** The top bar's note when an outbox stopped because the server refused a commit. */
export function blockedText(code: string): string {
  if (code === 'unauthorized') return 'Session expired: progress is kept here. Reload the page.'
  if (code === 'invalid_state') {
    return 'This launch has ended (is the course open in another window?). Reload the page.'
  }
  return 'Progress not saved. Reload the page to try again.'
}
