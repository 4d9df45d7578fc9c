/**
 * Navigation without a sequencer (SCORM 1.2, SCORM 2004 content the engine cannot sequence, an
 * attempt reopened in review): the simple flow over the course's launchable items in order,
 * with any item a choice. What ends the attempt stays the status rule (session-status.ts).
 */
import type { Executor } from '../../infra/db/schema.ts'
import type { CourseItem } from '../sessions/course-items.ts'
import { isFinished } from '../sessions/session-status.ts'
import { endOpenDeliveries, inReview, launchItem } from './delivery-launch.ts'
import { type NavigationInput, navigationRefused } from './navigation-input.ts'
import type { Loaded } from './runtime.types.ts'

export async function simpleNavigation(
  trx: Executor,
  loaded: Loaded,
  input: NavigationInput,
  at: string,
) {
  const items = loaded.items.filter((i) => i.launchable)
  const index = items.findIndex((i) => i.id === loaded.session.current_item_id)
  const target = simpleTarget(items, index, input)
  if (target === 'end') {
    await endOpenDeliveries(trx, loaded, at)
    const over = inReview(loaded) || isFinished(loaded.session)
    const reason = input.request === 'suspendAll' ? 'suspended' : over ? 'completed' : 'exited'
    return {
      delivery: null,
      ended: { reason, attempt_ended: over } as const,
      engine: null,
    }
  }
  const delivery = await launchItem(trx, loaded, target.id, at)
  return { delivery, ended: null, engine: null }
}

/** The item a request goes to, or the end of the course (Continue past the last item, exits). */
function simpleTarget(
  items: readonly CourseItem[],
  index: number,
  input: NavigationInput,
): CourseItem | 'end' {
  const at = (i: number, exception: string) => {
    const item = items[i]
    if (!item) throw navigationRefused(exception, `Nothing to deliver for ${input.request}`)
    return item
  }
  switch (input.request) {
    case 'start':
    case 'resumeAll':
      return at(Math.max(index, 0), 'SB.2.5-1')
    case 'continue':
      return index + 1 >= items.length ? 'end' : at(index + 1, 'SB.2.7-2')
    case 'previous':
      return at(index - 1, 'SB.2.8-2')
    case 'choice':
    case 'jump': {
      const chosen = items.findIndex((i) => i.id === input.target)
      return at(chosen < 0 ? items.length : chosen, 'NB.2.1-11')
    }
    default:
      return 'end'
  }
}
