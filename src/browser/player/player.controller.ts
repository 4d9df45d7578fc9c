/**
 * The launch page's behaviour: exchange the launch token, show the contents, open one delivery
 * at a time in the SCO frame, act on what the SCO asks for when it terminates, and keep every
 * commit until the server has it.
 */
import type { TerminateSummary } from '../../modules/scorm/data-model/index.ts'
import { afterTerminate, type EndReason } from './after-terminate.ts'
import { type Delivery, dataModelOptions, exposeApi, openDelivery } from './delivery.ts'
import { ItemStatuses, type StatusItem } from './item-status.ts'
import { createFlowNavigator, type NavItem, type Navigator } from './navigator.ts'
import { type PageLifecycle, watchPageLifecycle } from './page-lifecycle.ts'
import {
  endMessage,
  finishedMessage,
  openErrorMessage,
  pickMessage,
  refusedMessage,
  startErrorMessage,
} from './player.messages.ts'
import { Saves } from './player.saves.ts'
import { localStorageOf, withRetries } from './player.support.ts'
import { createPlayerView, type PlayerView } from './player.view.ts'
import type {
  DeliveryResponse,
  NavigationAnswer,
  SessionSummary,
  StartResponse,
} from './protocol.types.ts'
import {
  createRuntimeClient,
  type FetchFn,
  RuntimeCallError,
  type RuntimeClient,
} from './runtime.client.ts'
import {
  createSequencerNavigator,
  moveAfterTerminate,
  type SequencerMove,
  type SequencerNavigator,
} from './sequencer.navigator.ts'

export interface PlayerEnv {
  readonly window: Window
  readonly root: HTMLElement
  readonly fetch?: FetchFn
}

/** How long opening an item (or leaving the course) waits for commits to reach the server. */
const SAVE_WAIT_MS = 10_000
/** How long a SCO's beforeunload/unload handlers get before its frame is taken away. */
const UNLOAD_WAIT_MS = 5_000

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
  #start: StartResponse | undefined
  #nav: Navigator = createFlowNavigator([])
  #delivery: Delivery | undefined
  #busy = false
  #ended = false
  #lifecycle: PageLifecycle | undefined
  #statuses: ItemStatuses | undefined
  #course: SessionSummary | undefined
  /**
   * SCORM 2004 under the server's sequencer (the start answer carries `ui`): every move is a
   * navigation request the server decides; `#nav` then only lists the items.
   */
  #seq: SequencerNavigator | undefined

  constructor(env: PlayerEnv, sessionId: string) {
    this.#win = env.window
    this.#sessionId = sessionId
    this.#storage = localStorageOf(env.window)
    this.#client = createRuntimeClient({ sessionId, ...(env.fetch ? { fetch: env.fetch } : {}) })
    this.#view = createPlayerView(env.root, {
      previous: () => this.#click({ request: 'previous' }, () => this.#nav.previous()),
      next: () => this.#click({ request: 'continue' }, () => this.#nav.next()),
      choose: (id) => this.#click({ request: 'choice', target: id }, () => this.#nav.choose(id)),
      exit: () => void this.#leaveCourse('exit'),
      leave: (request) => this.#click({ request }, () => undefined),
    })
    this.#view.setChrome({ toc: false, controls: false })
    this.#saves = new Saves({
      sessionId,
      client: this.#client,
      storage: this.#storage,
      onNote: (text, tone) => this.#view.setSaveStatus(text, tone),
    })
  }

  async boot(launchToken: string): Promise<void> {
    if (!this.#sessionId || !launchToken) {
      this.#view.showScreen(startErrorMessage(new RuntimeCallError(400, 'missing_token', '')))
      return
    }
    this.#view.showScreen({ title: 'Opening the course…', busy: true })
    try {
      this.#start = await this.#client.start(launchToken)
    } catch (err) {
      const retry = { label: 'Try again', primary: true, run: () => void this.boot(launchToken) }
      this.#view.showScreen(startErrorMessage(err, retry))
      return
    }
    const start = this.#start
    const items: StatusItem[] = start.items.map((i) => ({
      id: i.id,
      title: i.title,
      level: i.level,
      launchable: i.launchable,
      href: i.href ?? null,
      visible: i.visible !== false,
      prerequisites: i.prerequisites ?? null,
      ...(i.completion_status !== undefined && { completion_status: i.completion_status }),
      ...(i.success_status !== undefined && { success_status: i.success_status }),
    }))
    const statuses = new ItemStatuses(start.scorm_version ?? '2004', items)
    this.#statuses = statuses
    this.#nav = createFlowNavigator(items, {
      flow: start.navigation?.flow !== false,
      choice: start.navigation?.choice !== false,
      startId: start.current_item_id ?? null,
      available: statuses.available,
    })
    const several = items.filter((i) => i.launchable).length > 1
    this.#view.setCourse(start.title, items, start.navigation?.choice !== false)
    // A review (finished attempt) changes nothing: it keeps the simple flow over its items.
    if (start.ui && start.scorm_version === '2004' && start.mode !== 'review') {
      this.#seq = createSequencerNavigator(start.ui)
      this.#renderSequenced()
    } else {
      this.#refreshItems()
      // One SCO: no bars at all, the SCO fills the viewport. It has no Exit button either:
      // closing the window is the exit, and it unloads the SCO the same way (beforeunload,
      // unload, a final commit by beacon); a button over the SCO would cover its own controls.
      this.#view.setChrome({ toc: several, controls: several, bar: several })
    }
    this.#saves.recover(start.runtime_token)
    this.#lifecycle ??= watchPageLifecycle(this.#win, {
      hidden: (unloading) => this.#saveForLeaving(unloading),
      online: () => this.#saves.flushAll(),
      autosave: () => {
        if (this.#delivery?.runtime.phase() === 'running') this.#delivery.runtime.commitNow()
      },
    })
    if (this.#seq) return this.#startSequenced(this.#seq, start)
    const first = this.#nav.current
    if (!first) {
      this.#view.showScreen({ title: 'This course has nothing to open.' })
      return
    }
    await this.#open(first)
  }

  /** A learner's click: a request to the sequencer, or a move of the flow navigator. */
  #click(request: SequencerMove, flowMove: () => NavItem | undefined): void {
    if (!this.#seq) this.#go(flowMove)
    else if (this.#seq.offers(request)) void this.#sequence(request)
  }

  #go(move: () => NavItem | undefined): void {
    if (this.#busy || this.#ended || !this.#start) return
    const target = move()
    if (target) void this.#open(target)
  }

  async #open(item: NavItem): Promise<void> {
    const start = this.#start
    if (!start) return
    this.#busy = true
    this.#updateControls()
    try {
      await this.#leaveCurrent()
      // After each wait: Exit may have been pressed meanwhile, and its end screen stays. A launch
      // made by then stays unused (the session's next one ends it).
      if (this.#ended) return
      this.#view.setCurrent(item.id)
      this.#view.showScreen({ title: `Opening “${item.title}”…`, busy: true })
      // Earlier commits first: the next delivery's launch data is built from them (resume).
      await this.#saves.drained(SAVE_WAIT_MS)
      if (this.#ended) return
      const response = await withRetries(() => this.#client.delivery(start.runtime_token, item.id))
      if (this.#ended) return
      this.#launch(response, item)
    } catch (err) {
      const retry = { label: 'Try again', primary: true, run: () => void this.#open(item) }
      this.#view.showScreen(
        openErrorMessage(err, item.title, retry, () => this.#win.location.reload()),
      )
    } finally {
      this.#busy = false
      this.#updateControls()
    }
  }

  /** Puts a delivery the server made into the SCO frame, with its runtime and outbox. */
  #launch(response: DeliveryResponse, item: NavItem): void {
    const start = this.#start
    if (!start) return
    // Under the sequencer each delivery brings the controls, contents and request_valid answers.
    if (this.#seq && response.ui) {
      this.#seq.update(response.ui, response.request_valid)
      this.#renderSequenced()
    }
    const delivery = openDelivery({
      response,
      sessionId: this.#sessionId,
      runtimeToken: start.runtime_token,
      client: this.#client,
      navigator: this.#seq ?? this.#nav,
      dataModelOptions: dataModelOptions(response.data_model_options ?? start.data_model_options),
      storage: this.#storage,
      onTerminate: (d, summary) => this.#onTerminate(d, summary),
      onStatus: (outbox, status) => this.#saves.onStatus(outbox, status),
      onCommit: (d, delta) => {
        this.#statuses?.update(d.itemId, d.runtime.state(), delta.final)
        this.#refreshItems()
        // Under the sequencer the marks are the server's; a status the SCO reports shows at once.
        const mark = this.#seq && this.#statuses?.mark(d.itemId)
        if (mark === 'passed' || mark === 'completed' || mark === 'failed') {
          this.#view.setItemMark(d.itemId, mark)
        }
      },
      onSession: (session) => {
        this.#course = session
        this.#view.setCourseComplete(this.#complete())
      },
    })
    this.#delivery = delivery
    this.#statuses?.visited(item.id)
    this.#refreshItems()
    this.#saves.track(delivery.outbox)
    exposeApi(this.#win, delivery)
    this.#view.clearMessages()
    this.#view.showFrame(this.#frameSrc(response.href ?? item.href), item.title)
  }

  /**
   * Unloads the SCO the way a browser unloads a page — its frame navigates away, so the SCO's
   * beforeunload, pagehide and unload handlers run and may still Terminate — then ends its
   * delivery. The API stays published until then: those handlers find it through `parent`.
   */
  async #leaveCurrent(): Promise<void> {
    const d = this.#delivery
    if (!d) return
    d.leaving = true
    await this.#view.unloadFrame(UNLOAD_WAIT_MS)
    this.#releaseDelivery(d)
  }

  /** The page itself is going away: the frame goes now, with the page's own unload. */
  #dropCurrent(): void {
    const d = this.#delivery
    if (!d) return
    d.leaving = true
    this.#view.removeFrame()
    this.#releaseDelivery(d)
  }

  /** Once per delivery: an unload that finishes after the page's own pagehide finds it gone. */
  #releaseDelivery(d: Delivery): void {
    if (this.#delivery !== d) return
    this.#view.removeFrame()
    if (!d.terminated) d.runtime.commitNow({ final: true })
    this.#saves.release(d.outbox)
    this.#delivery = undefined
    exposeApi(this.#win, undefined)
  }

  /** Contents marks, locks (prerequisites) and the previous/continue buttons, after a change. */
  #refreshItems(): void {
    const statuses = this.#statuses
    // Under the sequencer the contents' marks are the server's (rolled up), not the SCO's own.
    if (!statuses || this.#seq) {
      this.#updateControls()
      return
    }
    for (const item of this.#nav.items) {
      if (item.launchable) this.#view.setItemState(item.id, statuses.state(item))
    }
    this.#updateControls()
  }

  #complete(): boolean {
    return this.#course?.completion_status === 'completed'
  }

  #onTerminate(d: Delivery, summary: TerminateSummary): void {
    if (d.leaving || d !== this.#delivery) return
    // Let the SCO's Terminate call return before its frame goes away.
    this.#win.setTimeout(() => this.#afterTerminate(d, summary), 0)
  }

  #afterTerminate(d: Delivery, summary: TerminateSummary): void {
    if (d !== this.#delivery || this.#busy || this.#ended) return
    const action = afterTerminate(d.version, summary)
    if (this.#seq) {
      // The sequencer decides, from the SCO's request (or Exit All for time-out/logout).
      const move = moveAfterTerminate(action)
      if (move) void this.#sequence(move)
      else void this.#showFinished(d)
      return
    }
    const nav = this.#nav
    const move = (() => {
      switch (action.kind) {
        case 'continue':
          return nav.canNext() ? () => nav.next() : undefined
        case 'previous':
          return nav.canPrevious() ? () => nav.previous() : undefined
        case 'choice':
          return nav.canChoose(action.target) ? () => nav.choose(action.target) : undefined
        case 'jump':
          return nav.requestValid('jump', action.target) === 'true'
            ? () => nav.jump(action.target)
            : undefined
        case 'end':
        case 'stay':
          return undefined
      }
    })()
    if (action.kind === 'end') void this.#leaveCourse(action.reason)
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
    if (d !== this.#delivery || this.#busy || this.#ended) return
    const nav = this.#nav
    const several = nav.items.filter((i) => i.launchable).length > 1
    const canNext = this.#seq ? this.#seq.offers({ request: 'continue' }) : nav.canNext()
    const next = canNext
      ? {
          label: 'Continue',
          primary: true,
          run: () => this.#click({ request: 'continue' }, () => nav.next()),
        }
      : undefined
    this.#view.showNotice(finishedMessage(next, several, this.#complete()))
    this.#updateControls()
  }

  /**
   * Leaves the course: the SCO's exit request, or the learner's Exit. The SCO is unloaded as a
   * closing window would unload it, every commit is given time to arrive, then the end screen
   * says so. Never `window.close()`: inside another site's frame it cannot work, and a top-level
   * tab the learner opened is theirs to close.
   */
  async #leaveCourse(reason: EndReason): Promise<void> {
    if (this.#ended || !this.#start) return
    this.#ended = true
    this.#updateControls()
    this.#view.showScreen({ title: 'Saving your progress…', busy: true })
    await this.#leaveCurrent()
    await this.#showEnd(reason, () => this.#complete())
  }

  /** The end screen, once every commit is through (or after a wait, saying so). */
  async #showEnd(reason: EndReason, complete: () => boolean): Promise<void> {
    this.#ended = true
    const saved = await this.#saves.drained(SAVE_WAIT_MS)
    this.#view.setChrome({ toc: false, controls: false, bar: false })
    this.#view.showScreen(endMessage(reason, { complete: complete(), saved }))
    // The outboxes keep trying (and storage keeps their queue): say so once they are through.
    if (!saved && (await this.#saves.drained())) {
      this.#view.showScreen(endMessage(reason, { complete: complete(), saved: true }))
    }
  }

  /**
   * Opens a sequenced course: a reload of the page reopens the activity the sequencer is on;
   * otherwise Start — the server turns it into Resume All for a suspended attempt (Resume All
   * is sent itself when the start answer says `suspended`). Start may deliver nothing: the
   * learner then picks from the contents.
   */
  async #startSequenced(seq: SequencerNavigator, start: StartResponse): Promise<void> {
    const current = seq.currentId()
    if (current) return this.#open(this.#itemOf(current))
    return this.#sequence({ request: start.suspended === true ? 'resumeAll' : 'start' })
  }

  /**
   * One navigation request to the server's sequencer: a running SCO is unloaded first (its
   * unload handlers may still report and Terminate), every commit is drained — the sequencer
   * reads the SCO's results from them — then the request goes with the delivery being left. A
   * SCO that terminated itself stays on screen until the answer, so a refusal leaves it shown.
   */
  async #sequence(move: SequencerMove): Promise<void> {
    const seq = this.#seq
    const start = this.#start
    if (!seq || !start || this.#busy || this.#ended) return
    this.#busy = true
    this.#updateControls()
    const left = this.#delivery
    const ask = (m: SequencerMove) =>
      this.#client.navigate(start.runtime_token, {
        request: m.request,
        ...(m.target !== undefined && { target: m.target }),
        ...(left && { delivery_id: left.id }),
      })
    try {
      if (left && !left.terminated) {
        await this.#leaveCurrent()
        this.#view.showScreen({ title: 'One moment…', busy: true })
      }
      await this.#saves.drained(SAVE_WAIT_MS)
      if (this.#ended) return
      await this.#follow(seq, await ask(move))
    } catch (err) {
      if (isRefusal(err)) await this.#refused(seq)
      else {
        const retry = { label: 'Try again', primary: true, run: () => void this.#sequence(move) }
        const reload = () => this.#win.location.reload()
        this.#view.showScreen(openErrorMessage(err, 'The next part', retry, reload))
      }
    } finally {
      this.#busy = false
      this.#updateControls()
    }
  }

  /** Does what the sequencer answered: launch its delivery, end the course, or let the learner pick. */
  async #follow(seq: SequencerNavigator, answer: NavigationAnswer): Promise<void> {
    await this.#leaveCurrent()
    const delivery = answer.delivery
    if (delivery) {
      const ui = delivery.ui ?? answer.ui ?? seq.ui
      this.#launch({ ...delivery, ui }, this.#itemOf(delivery.item_id))
      return
    }
    if (answer.ui) {
      seq.update(answer.ui)
      this.#renderSequenced()
    }
    if (answer.ended) {
      const { reason } = answer.ended
      await this.#showEnd(reason === 'suspended' ? 'suspendAll' : 'exit', () => {
        return reason === 'completed' || (reason === 'exited' && this.#complete())
      })
    } else this.#view.showScreen(pickMessage(seq.ui.tocEnabled))
  }

  /**
   * The sequencer refused: the SCO that asked stays on screen with a notice; a learner's move
   * that had already unloaded the SCO reopens the activity the sequencer is still on.
   */
  async #refused(seq: SequencerNavigator): Promise<void> {
    const start = this.#start
    const canNext = seq.offers({ request: 'continue' })
    const next = canNext
      ? {
          label: 'Continue',
          primary: true,
          run: () => this.#click({ request: 'continue' }, () => undefined),
        }
      : undefined
    if (this.#delivery || !start) return this.#view.showNotice(refusedMessage(next))
    const current = seq.currentId()
    if (!current) return this.#view.showScreen(pickMessage(seq.ui.tocEnabled))
    const item = this.#itemOf(current)
    const response = await withRetries(() => this.#client.delivery(start.runtime_token, item.id))
    this.#launch(response, item)
    this.#view.showNotice(refusedMessage())
  }

  /** Contents, controls and leave menu from the sequencer's latest `ui`. */
  #renderSequenced(): void {
    const seq = this.#seq
    if (!seq) return
    const contents = seq.contents()
    this.#view.setContents(contents)
    const leaves = seq.ui.toc.filter(
      (e, i) => e.depth > 0 && (seq.ui.toc[i + 1]?.depth ?? 0) <= e.depth,
    )
    const several = leaves.length > 1
    const toc = seq.ui.tocEnabled && contents.length > 0
    const c = seq.controls(true)
    const controls = several && !(c.previous.hidden && c.continue.hidden)
    this.#view.setChrome({ toc, controls, bar: several || toc })
    this.#view.setLeaveMenu([
      { id: 'exit', ...c.exit },
      { id: 'suspendAll', ...c.suspendAll },
      { id: 'exitAll', ...c.exitAll },
    ])
    this.#updateControls()
  }

  #updateSequencedControls(seq: SequencerNavigator): void {
    const c = seq.controls(!this.#busy && !this.#ended)
    const leaves = seq.contents().filter((e) => !e.cluster)
    const index = leaves.findIndex((e) => e.current)
    this.#view.setControls({
      canPrevious: c.previous.enabled,
      canNext: c.continue.enabled,
      hidePrevious: c.previous.hidden,
      hideNext: c.continue.hidden,
      position: index >= 0 ? `${index + 1} of ${leaves.length}` : '',
      busy: this.#busy,
    })
  }

  /** The start answer's item, or the contents' entry of that id. */
  #itemOf(id: string): NavItem {
    const listed = this.#nav.items.find((i) => i.id === id)
    if (listed) return listed
    const title = this.#seq?.ui.toc.find((e) => e.id === id)?.title ?? id
    return { id, title, level: 0, launchable: true }
  }

  #updateControls(): void {
    if (this.#seq) {
      this.#updateSequencedControls(this.#seq)
      return
    }
    const launchable = this.#nav.items.filter((i) => i.launchable)
    const current = this.#nav.current
    const index = current ? launchable.indexOf(current) : -1
    const idle = !this.#busy && !this.#ended
    this.#view.setControls({
      canPrevious: idle && this.#nav.canPrevious(),
      canNext: idle && this.#nav.canNext(),
      position: index >= 0 ? `${index + 1} of ${launchable.length}` : '',
      busy: this.#busy,
    })
  }

  #frameSrc(href: string | null | undefined): string {
    const base = new URL(this.#start?.content_base ?? '/', this.#win.location.href)
    return new URL(href ?? '', base).href
  }

  /**
   * The page is being hidden (maybe for good): collect the SCO's uncommitted values and send
   * everything still pending by beacon. On a real unload the SCO is unloaded first, so its own
   * Terminate (or our final commit) ends the delivery before the beacon goes.
   */
  #saveForLeaving(unloading: boolean): void {
    const d = this.#delivery
    if (d && !d.terminated) {
      if (unloading) this.#dropCurrent()
      else if (d.runtime.phase() === 'running') d.runtime.commitNow()
    }
    const token = this.#start?.runtime_token
    if (token) this.#saves.beacon(this.#win, token)
  }
}

/** The sequencer said no (409 navigation_refused): nothing changed on the server. */
function isRefusal(err: unknown): boolean {
  return err instanceof RuntimeCallError && err.status === 409 && err.code === 'navigation_refused'
}
