/**
 * Leaving the course, and the end screen: the learner's Exit, the SCO's exit request, or the
 * sequencer's answer that the course has ended.
 */
import type { EndReason } from './after-terminate.ts'
import { updateControls } from './player.chrome.ts'
import { endMessage } from './player.messages.ts'
import { SAVE_WAIT_MS, type Saves } from './player.saves.ts'
import { courseComplete, type PlayerState } from './player.state.ts'
import type { PlayerView } from './player.view.ts'
import type { ScoFrame } from './sco-frame.ts'

export interface CourseExitDeps {
  readonly state: PlayerState
  readonly view: PlayerView
  readonly frame: ScoFrame
  readonly saves: Saves
}

export class CourseExit {
  readonly #deps: CourseExitDeps

  constructor(deps: CourseExitDeps) {
    this.#deps = deps
  }

  /**
   * Leaves the course: the SCO's exit request, or the learner's Exit. The SCO is unloaded as a
   * closing window would unload it, every commit is given time to arrive, then the end screen
   * says so. Never `window.close()`: inside another site's frame it cannot work, and a top-level
   * tab the learner opened is theirs to close.
   */
  async leave(reason: EndReason): Promise<void> {
    const { state, view, frame } = this.#deps
    if (state.ended || !state.start) return
    state.ended = true
    updateControls(view, state)
    view.showScreen({ title: 'Saving your progress…', busy: true })
    await frame.unload()
    await this.showEnd(reason, () => courseComplete(state))
  }

  /**
   * The end screen, once every commit is through (or after a wait, saying so). `complete` is
   * asked each time the screen is drawn: a late commit's answer may complete the course.
   */
  async showEnd(reason: EndReason, complete: () => boolean): Promise<void> {
    const { state, view, saves } = this.#deps
    state.ended = true
    const saved = await saves.drained(SAVE_WAIT_MS)
    view.setChrome({ toc: false, controls: false, bar: false })
    view.showScreen(endMessage(reason, { complete: complete(), saved }))
    // The outboxes keep trying (and storage keeps their queue): say so once they are through.
    if (!saved && (await saves.drained())) {
      view.showScreen(endMessage(reason, { complete: complete(), saved: true }))
    }
  }
}
