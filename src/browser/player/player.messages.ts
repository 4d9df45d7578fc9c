/** What the learner reads when something ends or fails. Plain words, no codes up front. */
import type { EndReason } from './after-terminate.ts'
import type { Message, ScreenAction } from './player.view.ts'
import { RuntimeCallError } from './runtime.client.ts'

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

export function endMessage(reason: EndReason): Message {
  if (reason === 'suspendAll') {
    return {
      title: 'Your progress is saved.',
      text: 'You can close this window. Next time you open the course, you continue where you left off.',
    }
  }
  return { title: 'You have left the course.', text: 'You can close this window.' }
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
