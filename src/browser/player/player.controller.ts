/**
 * The launch page's behaviour: exchange the launch token, show the contents, open one delivery
 * at a time in the SCO frame, act on what the SCO asks for when it terminates, and keep every
 * commit until the server has it.
 */
import type { TerminateSummary } from '../../modules/scorm/data-model/index.ts'
import { afterTerminate, type EndReason } from './after-terminate.ts'
import { type Delivery, dataModelOptions, exposeApi, openDelivery } from './delivery.ts'
import { createFlowNavigator, type NavItem, type Navigator } from './navigator.ts'
import { Outbox, type OutboxStatus, recoverStoredOutboxes } from './outbox.ts'
import { type PageLifecycle, watchPageLifecycle } from './page-lifecycle.ts'
import { blockedText, endMessage, openErrorMessage, startErrorMessage } from './player.messages.ts'
import { beaconOutboxes, localStorageOf, withRetries } from './player.support.ts'
import { createPlayerView, type PlayerView } from './player.view.ts'
import type { StartResponse } from './protocol.types.ts'
import {
  createRuntimeClient,
  type FetchFn,
  RuntimeCallError,
  type RuntimeClient,
} from './runtime.client.ts'

export interface PlayerEnv {
  readonly window: Window
  readonly root: HTMLElement
  readonly fetch?: FetchFn
}

/** How long opening an item waits for earlier commits to reach the server. */
const SAVE_WAIT_MS = 10_000

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
  #start: StartResponse | undefined
  #nav: Navigator = createFlowNavigator([])
  #delivery: Delivery | undefined
  readonly #outboxes = new Map<Outbox, OutboxStatus>()
  #busy = false
  #ended = false
  #lifecycle: PageLifecycle | undefined

  constructor(env: PlayerEnv, sessionId: string) {
    this.#win = env.window
    this.#sessionId = sessionId
    this.#storage = localStorageOf(env.window)
    this.#client = createRuntimeClient({ sessionId, ...(env.fetch ? { fetch: env.fetch } : {}) })
    this.#view = createPlayerView(env.root, {
      previous: () => this.#go(() => this.#nav.previous()),
      next: () => this.#go(() => this.#nav.next()),
      choose: (id) => this.#go(() => this.#nav.choose(id)),
    })
    this.#view.setChrome({ toc: false, controls: false })
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
    const items: NavItem[] = start.items.map((i) => ({
      id: i.id,
      title: i.title,
      level: i.level,
      launchable: i.launchable,
      href: i.href ?? null,
    }))
    this.#nav = createFlowNavigator(items, {
      flow: start.navigation?.flow !== false,
      choice: start.navigation?.choice !== false,
      startId: start.current_item_id ?? null,
    })
    const several = items.filter((i) => i.launchable).length > 1
    this.#view.setCourse(start.title, items, start.navigation?.choice !== false)
    this.#view.setChrome({ toc: several, controls: several })
    this.#recoverOutboxes()
    this.#lifecycle ??= watchPageLifecycle(this.#win, {
      hidden: (unloading) => this.#saveForLeaving(unloading),
      online: () => {
        for (const outbox of this.#outboxes.keys()) outbox.flush()
      },
      autosave: () => {
        if (this.#delivery?.runtime.phase() === 'running') this.#delivery.runtime.commitNow()
      },
    })
    const first = this.#nav.current
    if (!first) {
      this.#view.showScreen({ title: 'This course has nothing to open.' })
      return
    }
    await this.#open(first)
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
      this.#leaveCurrent()
      this.#view.setCurrent(item.id)
      this.#view.showScreen({ title: `Opening “${item.title}”…`, busy: true })
      await this.#waitForSaves()
      const response = await withRetries(() => this.#client.delivery(start.runtime_token, item.id))
      const delivery = openDelivery({
        response,
        sessionId: this.#sessionId,
        runtimeToken: start.runtime_token,
        client: this.#client,
        navigator: this.#nav,
        dataModelOptions: dataModelOptions(response.data_model_options ?? start.data_model_options),
        storage: this.#storage,
        onTerminate: (d, summary) => this.#onTerminate(d, summary),
        onStatus: (outbox, status) => this.#onOutboxStatus(outbox, status),
      })
      this.#delivery = delivery
      this.#outboxes.set(delivery.outbox, { state: 'idle' })
      exposeApi(this.#win, delivery)
      this.#view.clearMessages()
      this.#view.showFrame(this.#frameSrc(response.href ?? item.href), item.title)
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

  /** Unloads the SCO (its unload handlers may still Terminate) and ends its delivery. */
  #leaveCurrent(): void {
    const d = this.#delivery
    if (!d) return
    d.leaving = true
    this.#view.removeFrame()
    if (!d.terminated) d.runtime.commitNow({ final: true })
    if (d.outbox.pending().length === 0) this.#outboxes.delete(d.outbox)
    this.#delivery = undefined
    exposeApi(this.#win, undefined)
  }

  #onTerminate(d: Delivery, summary: TerminateSummary): void {
    if (d.leaving || d !== this.#delivery) return
    // Let the SCO's Terminate call return before its frame goes away.
    this.#win.setTimeout(() => this.#afterTerminate(d, summary), 0)
  }

  #afterTerminate(d: Delivery, summary: TerminateSummary): void {
    if (d !== this.#delivery || this.#busy || this.#ended) return
    const action = afterTerminate(d.version, summary)
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
    if (action.kind === 'end') this.#end(action.reason)
    else if (move) this.#go(move)
    // No request, or one that cannot be followed (continue on the last item): the learner decides.
    else this.#showFinished()
  }

  /** The SCO ended without (a valid) navigation request: the learner picks what comes next. */
  #showFinished(): void {
    const nav = this.#nav
    const several = nav.items.filter((i) => i.launchable).length > 1
    if (nav.canNext()) {
      const next = { label: 'Continue', primary: true, run: () => this.#go(() => nav.next()) }
      this.#view.showNotice({ title: 'This part has ended.', actions: [next] })
    } else if (several) {
      this.#view.showNotice({
        title: 'That was the last part of the course.',
        text: 'You can close this window, or pick a part from the contents.',
      })
    } else {
      this.#view.showNotice({ title: 'The lesson has ended.', text: 'You can close this window.' })
    }
    this.#updateControls()
  }

  #end(reason: EndReason): void {
    this.#ended = true
    this.#leaveCurrent()
    this.#view.setChrome({ toc: false, controls: false })
    this.#view.showScreen(endMessage(reason))
  }

  #updateControls(): void {
    const launchable = this.#nav.items.filter((i) => i.launchable)
    const current = this.#nav.current
    const index = current ? launchable.indexOf(current) : -1
    const idle = !this.#busy && !this.#ended
    this.#view.setControls({
      canPrevious: idle && this.#nav.canPrevious(),
      canNext: idle && this.#nav.canNext(),
      position: index >= 0 ? `${index + 1} of ${launchable.length}` : '',
    })
  }

  #frameSrc(href: string | null | undefined): string {
    const base = new URL(this.#start?.content_base ?? '/', this.#win.location.href)
    return new URL(href ?? '', base).href
  }

  /** Earlier commits first: the next delivery's launch data is built from them (resume). */
  async #waitForSaves(): Promise<void> {
    const waits = [...this.#outboxes.keys()].map((outbox) => {
      outbox.flush()
      return outbox.whenDrained(SAVE_WAIT_MS)
    })
    await Promise.all(waits)
  }

  #recoverOutboxes(): void {
    const start = this.#start
    if (!this.#storage || !start) return
    const stored = recoverStoredOutboxes(this.#storage, this.#sessionId, { now: Date.now() })
    for (const entry of stored) {
      const outbox: Outbox = new Outbox({
        sessionId: this.#sessionId,
        deliveryId: entry.did,
        storage: this.#storage,
        recovered: entry.deltas,
        send: (delta) => this.#client.commit(start.runtime_token, entry.did, delta),
        onStatus: (status) => {
          // Refused even with a fresh token (another attempt, an ended delivery): let it go.
          if (status.state === 'blocked') outbox.discard()
          this.#onOutboxStatus(outbox, status.state === 'blocked' ? { state: 'idle' } : status)
        },
      })
      this.#outboxes.set(outbox, { state: 'idle' })
      outbox.flush()
    }
  }

  #onOutboxStatus(outbox: Outbox, status: OutboxStatus): void {
    const current = this.#delivery?.outbox === outbox
    if (status.state === 'idle' && !current) this.#outboxes.delete(outbox)
    else this.#outboxes.set(outbox, status)
    const states = [...this.#outboxes.values()]
    const blocked = states.find((s) => s.state === 'blocked')
    if (blocked) {
      this.#view.setSaveStatus(blockedText(blocked.code), 'warning')
    } else if (states.some((s) => s.state === 'retrying')) {
      this.#view.setSaveStatus('Offline. Your progress is kept and will be sent.', 'warning')
    } else {
      this.#view.setSaveStatus('')
    }
  }

  /**
   * The page is being hidden (maybe for good): collect the SCO's uncommitted values and send
   * everything still pending by beacon. On a real unload the SCO is unloaded first, so its own
   * Terminate (or our final commit) ends the delivery before the beacon goes.
   */
  #saveForLeaving(unloading: boolean): void {
    const d = this.#delivery
    if (d && !d.terminated) {
      if (unloading) this.#leaveCurrent()
      else if (d.runtime.phase() === 'running') d.runtime.commitNow()
    }
    const token = this.#start?.runtime_token
    if (token) beaconOutboxes(this.#win, this.#client.commitUrl, token, this.#outboxes.keys())
  }
}
