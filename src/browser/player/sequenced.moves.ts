/**
 * SCORM 2004 under the server's sequencer: every move — the learner's click, a terminated SCO's
 * request, the opening Start — is a navigation request the server decides, and this class does
 * what it answers. The browser never decides what a learner may enter.
 */
import type { EndReason } from './after-terminate.ts'
import type { NavItem } from './navigator.ts'
import { renderSequenced, updateControls } from './player.chrome.ts'
import { openErrorMessage, pickMessage, refusedMessage } from './player.messages.ts'
import { SAVE_WAIT_MS, type Saves } from './player.saves.ts'
import { courseComplete, itemOf, type PlayerState } from './player.state.ts'
import { withRetries } from './player.support.ts'
import type { PlayerView } from './player.view.ts'
import type { DeliveryResponse, NavigationAnswer, StartResponse } from './protocol.types.ts'
import { RuntimeCallError, type RuntimeClient } from './runtime.client.ts'
import type { ScoFrame } from './sco-frame.ts'
import type { SequencerMove, SequencerNavigator } from './sequencer.navigator.ts'

export interface SequencedMovesDeps {
  readonly win: Window
  readonly view: PlayerView
  readonly client: RuntimeClient
  readonly saves: Saves
  readonly frame: ScoFrame
  readonly state: PlayerState
  /** Opens an item with `POST …/deliveries` (the activity the sequencer is already on). */
  readonly open: (item: NavItem) => Promise<void>
  /** Puts a delivery into the SCO frame. */
  readonly launch: (response: DeliveryResponse, item: NavItem) => void
  /** The end screen, once every commit is through. */
  readonly showEnd: (reason: EndReason, complete: () => boolean) => Promise<void>
}

export class SequencedMoves {
  readonly #deps: SequencedMovesDeps
  readonly #seq: SequencerNavigator

  constructor(seq: SequencerNavigator, deps: SequencedMovesDeps) {
    this.#seq = seq
    this.#deps = deps
  }

  /**
   * Opens the course: a reload of the page reopens the activity the sequencer is on; otherwise
   * Start — the server turns it into Resume All for a suspended attempt (Resume All is sent
   * itself when the start answer says `suspended`). Start may deliver nothing: the learner then
   * picks from the contents.
   */
  async begin(start: StartResponse): Promise<void> {
    const current = this.#seq.currentId()
    if (current) return this.#deps.open(itemOf(this.#deps.state, current))
    return this.request({ request: start.suspended === true ? 'resumeAll' : 'start' })
  }

  /** A learner's click: sent only when the sequencer's last answer offers it. */
  click(move: SequencerMove): void {
    if (this.#seq.offers(move)) void this.request(move)
  }

  /**
   * One navigation request to the server's sequencer: a running SCO is unloaded first (its
   * unload handlers may still report and Terminate), every commit is drained — the sequencer
   * reads the SCO's results from them — then the request goes with the delivery being left. A
   * SCO that terminated itself stays on screen until the answer, so a refusal leaves it shown.
   */
  async request(move: SequencerMove): Promise<void> {
    const { state, view, client, saves, frame, win } = this.#deps
    const start = state.start
    if (!start || state.busy || state.ended) return
    state.busy = true
    updateControls(view, state)
    const left = frame.current
    const ask = (m: SequencerMove) =>
      client.navigate(start.runtime_token, {
        request: m.request,
        ...(m.target !== undefined && { target: m.target }),
        ...(left && { delivery_id: left.id }),
      })
    try {
      if (left && !left.terminated) {
        await frame.unload()
        view.showScreen({ title: 'One moment…', busy: true })
      }
      await saves.drained(SAVE_WAIT_MS)
      if (state.ended) return
      await this.#follow(await ask(move))
    } catch (err) {
      if (isRefusal(err)) await this.#refused()
      else {
        const retry = { label: 'Try again', primary: true, run: () => void this.request(move) }
        const reload = () => win.location.reload()
        view.showScreen(openErrorMessage(err, 'The next part', retry, reload))
      }
    } finally {
      state.busy = false
      updateControls(view, state)
    }
  }

  /** Does what the sequencer answered: launch its delivery, end the course, or let the learner pick. */
  async #follow(answer: NavigationAnswer): Promise<void> {
    const { state, view, frame } = this.#deps
    const seq = this.#seq
    await frame.unload()
    const delivery = answer.delivery
    if (delivery) {
      const ui = delivery.ui ?? answer.ui ?? seq.ui
      this.#deps.launch({ ...delivery, ui }, itemOf(state, delivery.item_id))
      return
    }
    if (answer.ui) {
      seq.update(answer.ui)
      renderSequenced(view, state)
    }
    if (answer.ended) {
      const { reason } = answer.ended
      await this.#deps.showEnd(reason === 'suspended' ? 'suspendAll' : 'exit', () => {
        return reason === 'completed' || (reason === 'exited' && courseComplete(state))
      })
    } else view.showScreen(pickMessage(seq.ui.tocEnabled))
  }

  /**
   * The sequencer refused: the SCO that asked stays on screen with a notice; a learner's move
   * that had already unloaded the SCO reopens the activity the sequencer is still on.
   */
  async #refused(): Promise<void> {
    const { state, view, client, frame } = this.#deps
    const seq = this.#seq
    const start = state.start
    const next = seq.offers({ request: 'continue' })
      ? { label: 'Continue', primary: true, run: () => this.click({ request: 'continue' }) }
      : undefined
    if (frame.current || !start) return view.showNotice(refusedMessage(next))
    const current = seq.currentId()
    if (!current) return view.showScreen(pickMessage(seq.ui.tocEnabled))
    const item = itemOf(state, current)
    const response = await withRetries(() => client.delivery(start.runtime_token, item.id))
    this.#deps.launch(response, item)
    view.showNotice(refusedMessage())
  }
}

/** The sequencer said no (409 navigation_refused): nothing changed on the server. */
function isRefusal(err: unknown): boolean {
  return err instanceof RuntimeCallError && err.status === 409 && err.code === 'navigation_refused'
}
