/**
 * The launch page's behaviour: exchange the launch token, show the contents, open one delivery
 * at a time in the SCO frame, act on what the SCO asks for when it terminates, and keep every
 * commit until the server has it. Moves under the server's sequencer are `sequenced.moves.ts`;
 * what the bars show is `player.chrome.ts`; the frame's delivery is `sco-frame.ts`.
 */
import type { TerminateSummary } from '../../modules/scorm/data-model/index.ts'
import { afterTerminate } from './after-terminate.ts'
import { CourseExit } from './course-exit.ts'
import { type Delivery, dataModelOptions, openDelivery } from './delivery.ts'
import { ItemStatuses, type StatusItem, statusItemsOf } from './item-status.ts'
import { createFlowNavigator, flowMoveAfterTerminate, type NavItem } from './navigator.ts'
import { type PageLifecycle, watchPageLifecycle } from './page-lifecycle.ts'
import { refreshItems, renderSequenced, updateControls } from './player.chrome.ts'
import { finishedMessage, openErrorMessage, startErrorMessage } from './player.messages.ts'
import { SAVE_WAIT_MS, Saves } from './player.saves.ts'
import { courseComplete, initialPlayerState, type PlayerState } from './player.state.ts'
import { localStorageOf, withRetries } from './player.support.ts'
import { createPlayerView, type PlayerView } from './player.view.ts'
import type { DeliveryResponse, StartResponse } from './protocol.types.ts'
import {
  createRuntimeClient,
  type FetchFn,
  RuntimeCallError,
  type RuntimeClient,
} from './runtime.client.ts'
import { ScoFrame } from './sco-frame.ts'
import { SequencedMoves } from './sequenced.moves.ts'
import {
  createSequencerNavigator,
  moveAfterTerminate,
  type SequencerMove,
} from './sequencer.navigator.ts'

export interface PlayerEnv {
  readonly window: Window
  readonly root: HTMLElement
  readonly fetch?: FetchFn
}

export function startPlayer(env: PlayerEnv): Promise<void> {
  const { location } = env.window
  const sessionId = /^\/launch\/([^/]+)\/?$/.exec(location.pathname)?.[1]
  const token = new URLSearchParams(location.search).get('token')
  const player = new Player(env, decodeURIComponent(sessionId ?? ''))
  return player.boot(token ?? '')
}

class Player {
  readonly #win: Window
  readonly #view: PlayerView
  readonly #client: RuntimeClient
  readonly #sessionId: string
  readonly #storage: Storage | null
  readonly #saves: Saves
  readonly #frame: ScoFrame
  readonly #state: PlayerState = initialPlayerState()
  readonly #exit: CourseExit
  #lifecycle: PageLifecycle | undefined
  /** Set when the server sequences the course (`#state.seq`): it makes every move. */
  #sequenced: SequencedMoves | undefined

  constructor(env: PlayerEnv, sessionId: string) {
    this.#win = env.window
    this.#sessionId = sessionId
    this.#storage = localStorageOf(env.window)
    this.#client = createRuntimeClient({ sessionId, ...(env.fetch ? { fetch: env.fetch } : {}) })
    this.#view = createPlayerView(env.root, {
      previous: () => this.#click({ request: 'previous' }, () => this.#state.nav.previous()),
      next: () => this.#click({ request: 'continue' }, () => this.#state.nav.next()),
      choose: (id) =>
        this.#click({ request: 'choice', target: id }, () => this.#state.nav.choose(id)),
      exit: () => void this.#exit.leave('exit'),
      leave: (request) => this.#click({ request }, () => undefined),
    })
    this.#view.setChrome({ toc: false, controls: false })
    this.#saves = new Saves({
      sessionId,
      client: this.#client,
      storage: this.#storage,
      onNote: (text, tone) => this.#view.setSaveStatus(text, tone),
    })
    this.#frame = new ScoFrame({ win: this.#win, view: this.#view, saves: this.#saves })
    this.#exit = new CourseExit({
      state: this.#state,
      view: this.#view,
      frame: this.#frame,
      saves: this.#saves,
    })
  }

  async boot(launchToken: string): Promise<void> {
    if (!this.#sessionId || !launchToken) {
      this.#view.showScreen(startErrorMessage(new RuntimeCallError(400, 'missing_token', '')))
      return
    }
    this.#view.showScreen({ title: 'Opening the course…', busy: true })
    let start: StartResponse
    try {
      start = await this.#client.start(launchToken)
    } catch (err) {
      const retry = { label: 'Try again', primary: true, run: () => void this.boot(launchToken) }
      this.#view.showScreen(startErrorMessage(err, retry))
      return
    }
    this.#state.start = start
    const items = statusItemsOf(start)
    const several = items.filter((i) => i.launchable).length > 1
    this.#showCourse(start, items)
    // One SCO: no bars at all, the SCO fills the viewport. It has no Exit button either:
    // closing the window is the exit, and it unloads the SCO the same way (beforeunload,
    // unload, a final commit by beacon); a button over the SCO would cover its own controls.
    if (!this.#sequenced) this.#view.setChrome({ toc: several, controls: several, bar: several })
    this.#saves.recover(start.runtime_token)
    this.#lifecycle ??= watchPageLifecycle(this.#win, {
      hidden: (unloading) => this.#saveForLeaving(unloading),
      online: () => this.#saves.flushAll(),
      autosave: () => {
        const d = this.#frame.current
        if (d?.runtime.phase() === 'running') d.runtime.commitNow()
      },
    })
    if (this.#sequenced) return this.#sequenced.begin(start)
    const first = this.#state.nav.current
    if (!first) {
      this.#view.showScreen({ title: 'This course has nothing to open.' })
      return
    }
    await this.#open(first)
  }

  /** The contents and the navigator: the flow over the items, or the server's sequencer. */
  #showCourse(start: StartResponse, items: StatusItem[]): void {
    const state = this.#state
    const statuses = new ItemStatuses(start.scorm_version ?? '2004', items)
    state.statuses = statuses
    state.nav = createFlowNavigator(items, {
      flow: start.navigation?.flow !== false,
      choice: start.navigation?.choice !== false,
      startId: start.current_item_id ?? null,
      available: statuses.available,
    })
    this.#view.setCourse(start.title, items, start.navigation?.choice !== false)
    // A review (finished attempt) changes nothing: it keeps the simple flow over its items.
    if (start.ui && start.scorm_version === '2004' && start.mode !== 'review') {
      state.seq = createSequencerNavigator(start.ui)
      this.#sequenced = new SequencedMoves(state.seq, {
        win: this.#win,
        view: this.#view,
        client: this.#client,
        saves: this.#saves,
        frame: this.#frame,
        state,
        open: (item) => this.#open(item),
        launch: (response, item) => this.#launch(response, item),
        showEnd: (reason, complete) => this.#exit.showEnd(reason, complete),
      })
      renderSequenced(this.#view, state)
    } else refreshItems(this.#view, state)
  }

  /** A learner's click: a request to the sequencer, or a move of the flow navigator. */
  #click(request: SequencerMove, flowMove: () => NavItem | undefined): void {
    if (!this.#sequenced) this.#go(flowMove)
    else this.#sequenced.click(request)
  }

  #go(move: () => NavItem | undefined): void {
    if (this.#state.busy || this.#state.ended || !this.#state.start) return
    const target = move()
    if (target) void this.#open(target)
  }

  async #open(item: NavItem): Promise<void> {
    const state = this.#state
    const start = state.start
    if (!start) return
    state.busy = true
    updateControls(this.#view, state)
    try {
      await this.#frame.unload()
      // After each wait: Exit may have been pressed meanwhile, and its end screen stays. A launch
      // made by then stays unused (the session's next one ends it).
      if (state.ended) return
      this.#view.setCurrent(item.id)
      this.#view.showScreen({ title: `Opening “${item.title}”…`, busy: true })
      // Earlier commits first: the next delivery's launch data is built from them (resume).
      await this.#saves.drained(SAVE_WAIT_MS)
      if (state.ended) return
      const response = await withRetries(() => this.#client.delivery(start.runtime_token, item.id))
      if (state.ended) return
      this.#launch(response, item)
    } catch (err) {
      const retry = { label: 'Try again', primary: true, run: () => void this.#open(item) }
      this.#view.showScreen(
        openErrorMessage(err, item.title, retry, () => this.#win.location.reload()),
      )
    } finally {
      state.busy = false
      updateControls(this.#view, state)
    }
  }

  /** Puts a delivery the server made into the SCO frame, with its runtime and outbox. */
  #launch(response: DeliveryResponse, item: NavItem): void {
    const state = this.#state
    const start = state.start
    if (!start) return
    // Under the sequencer each delivery brings the controls, contents and request_valid answers.
    if (state.seq && response.ui) {
      state.seq.update(response.ui, response.request_valid)
      renderSequenced(this.#view, state)
    }
    const delivery = openDelivery({
      response,
      sessionId: this.#sessionId,
      runtimeToken: start.runtime_token,
      client: this.#client,
      navigator: state.seq ?? state.nav,
      dataModelOptions: dataModelOptions(response.data_model_options ?? start.data_model_options),
      storage: this.#storage,
      onTerminate: (d, summary) => this.#onTerminate(d, summary),
      onStatus: (outbox, status) => this.#saves.onStatus(outbox, status),
      onCommit: (d, delta) => {
        state.statuses?.update(d.itemId, d.runtime.state(), delta.final)
        refreshItems(this.#view, state)
        // Under the sequencer the marks are the server's; a status the SCO reports shows at once.
        const mark = state.seq && state.statuses?.mark(d.itemId)
        if (mark === 'passed' || mark === 'completed' || mark === 'failed') {
          this.#view.setItemMark(d.itemId, mark)
        }
      },
      onSession: (session) => {
        state.course = session
        this.#view.setCourseComplete(courseComplete(state))
      },
    })
    state.statuses?.visited(item.id)
    refreshItems(this.#view, state)
    const href = response.href ?? item.href ?? ''
    this.#frame.show(delivery, { href, base: start.content_base, title: item.title })
  }

  #onTerminate(d: Delivery, summary: TerminateSummary): void {
    if (d.leaving || d !== this.#frame.current) return
    // Let the SCO's Terminate call return before its frame goes away.
    this.#win.setTimeout(() => this.#afterTerminate(d, summary), 0)
  }

  #afterTerminate(d: Delivery, summary: TerminateSummary): void {
    const state = this.#state
    if (d !== this.#frame.current || state.busy || state.ended) return
    const action = afterTerminate(d.version, summary)
    if (this.#sequenced) {
      // The sequencer decides, from the SCO's request (or Exit All for time-out/logout).
      const move = moveAfterTerminate(action)
      if (move) void this.#sequenced.request(move)
      else void this.#showFinished(d)
      return
    }
    const move = flowMoveAfterTerminate(action, state.nav)
    if (action.kind === 'end') void this.#exit.leave(action.reason)
    else if (move) this.#go(move)
    // No request, or one that cannot be followed (continue on the last item): the learner decides.
    else void this.#showFinished(d)
  }

  /**
   * The SCO ended without (a valid) navigation request: the learner picks what comes next. The
   * final commit's answer comes first (briefly), so the notice can say whether the course is done.
   */
  async #showFinished(d: Delivery): Promise<void> {
    await d.outbox.whenDrained(SAVE_WAIT_MS)
    const state = this.#state
    if (d !== this.#frame.current || state.busy || state.ended) return
    const nav = state.nav
    const several = nav.items.filter((i) => i.launchable).length > 1
    const canNext = state.seq ? state.seq.offers({ request: 'continue' }) : nav.canNext()
    const next = canNext
      ? {
          label: 'Continue',
          primary: true,
          run: () => this.#click({ request: 'continue' }, () => nav.next()),
        }
      : undefined
    this.#view.showNotice(finishedMessage(next, several, courseComplete(state)))
    updateControls(this.#view, state)
  }

  /**
   * The page is being hidden (maybe for good): collect the SCO's uncommitted values and send
   * everything still pending by beacon. On a real unload the SCO is unloaded first, so its own
   * Terminate (or our final commit) ends the delivery before the beacon goes.
   */
  #saveForLeaving(unloading: boolean): void {
    const d = this.#frame.current
    if (d && !d.terminated) {
      if (unloading) this.#frame.drop()
      else if (d.runtime.phase() === 'running') d.runtime.commitNow()
    }
    const token = this.#state.start?.runtime_token
    if (token) this.#saves.beacon(this.#win, token)
  }
}
