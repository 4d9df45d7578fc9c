/**
 * The one delivery in the SCO frame: putting it there with its API published, and the two ways
 * it goes away — unloaded as a browser unloads a page (a move elsewhere, Exit) or removed with
 * the page itself (pagehide).
 */
import { type Delivery, exposeApi } from './delivery.ts'
import type { Saves } from './player.saves.ts'
import type { PlayerView } from './player.view.ts'

/** How long a SCO's beforeunload/unload handlers get before its frame is taken away. */
const UNLOAD_WAIT_MS = 5_000

export interface ScoFrameDeps {
  readonly win: Window
  readonly view: PlayerView
  readonly saves: Saves
}

export class ScoFrame {
  readonly #deps: ScoFrameDeps
  #delivery: Delivery | undefined

  constructor(deps: ScoFrameDeps) {
    this.#deps = deps
  }

  /** The delivery on screen, until it has been unloaded or dropped. */
  get current(): Delivery | undefined {
    return this.#delivery
  }

  /**
   * Publishes the delivery's API, tracks its outbox and loads `href` (relative to the start
   * answer's content base, itself relative to the page) in a new frame.
   */
  show(delivery: Delivery, page: { href: string; base: string; title: string }): void {
    const { win, view, saves } = this.#deps
    this.#delivery = delivery
    saves.track(delivery.outbox)
    exposeApi(win, delivery)
    view.clearMessages()
    const base = new URL(page.base, win.location.href)
    view.showFrame(new URL(page.href, base).href, page.title)
  }

  /**
   * Unloads the SCO the way a browser unloads a page — its frame navigates away, so the SCO's
   * beforeunload, pagehide and unload handlers run and may still Terminate — then ends its
   * delivery. The API stays published until then: those handlers find it through `parent`.
   */
  async unload(): Promise<void> {
    const d = this.#delivery
    if (!d) return
    d.leaving = true
    await this.#deps.view.unloadFrame(UNLOAD_WAIT_MS)
    this.#release(d)
  }

  /** The page itself is going away: the frame goes now, with the page's own unload. */
  drop(): void {
    const d = this.#delivery
    if (!d) return
    d.leaving = true
    this.#deps.view.removeFrame()
    this.#release(d)
  }

  /** Once per delivery: an unload that finishes after the page's own pagehide finds it gone. */
  #release(d: Delivery): void {
    if (this.#delivery !== d) return
    this.#deps.view.removeFrame()
    if (!d.terminated) d.runtime.commitNow({ final: true })
    this.#deps.saves.release(d.outbox)
    this.#delivery = undefined
    exposeApi(this.#deps.win, undefined)
  }
}
