/**
 * Plays one ADL CTS sequencing case through the real player in Chromium, as the upstream
 * tester did: the course is launched from the API, each delivered SCO (the test SCO page of
 * cts-package.ts) runs the case's steps and Terminates with its navigation request, and the
 * tester's events are clicks on the player's own controls (Continue, Previous, the contents,
 * the Exit menu). What the player shows is compared with the case: the delivered activities
 * in order, every UI check, every adl.nav.request_valid read, and the session's end.
 */
import type { Frame, Page } from 'playwright-core'
import type {
  SeqCase,
  SeqDelivery,
  SeqEvent,
} from '../../unit/scorm/sequencing/cts/seq-case.types.ts'
import type { TestBrowser } from './browser.ts'
import { playerFrame } from './golf-learner.ts'
import { type ApiClient, until } from './live-server.ts'

/** CTS_E2E_TRACE=1 prints every start, navigation and delivery call with its answer. */
const TRACE = process.env.CTS_E2E_TRACE === '1'

/** The end screen's titles (player.messages.ts endMessage). */
const END_TITLES = ['Course complete', 'Your progress is saved.', 'You have left the course.']

export interface CaseRun {
  readonly id: string
  /** Item ids the server delivered, in order. */
  readonly delivered: string[]
  /** Everything that differs from the case; empty when the case passes. */
  readonly problems: string[]
  uiChecks: number
  requestValidReads: number
}

export interface PlayCaseOptions {
  readonly browser: TestBrowser
  readonly api: ApiClient
  /** Uploaded package id of each of the case's packages. */
  readonly packageIds: ReadonlyMap<string, string>
  readonly learner: string
}

/** The test SCO page's `window.cts` (cts-package.ts). */
type Cts = {
  run(steps: unknown): string[]
  terminate(): string
  onUnload(calls: unknown): void
}

export async function playCtsCase(c: SeqCase, o: PlayCaseOptions): Promise<CaseRun> {
  const driver = new CaseDriver(c, o)
  try {
    await driver.play()
  } catch (err) {
    driver.run.problems.push(`stopped: ${(err as Error).message.split('\n')[0]}`)
  } finally {
    await driver.close()
  }
  return driver.run
}

class CaseDriver {
  readonly run: CaseRun
  readonly #c: SeqCase
  readonly #o: PlayCaseOptions
  #page: Page | undefined
  #player: Frame | undefined
  /** Answers to POST …/navigation received (refusals included). */
  #navAnswers = 0

  constructor(c: SeqCase, o: PlayCaseOptions) {
    this.#c = c
    this.#o = o
    this.run = { id: c.id, delivered: [], problems: [], uiChecks: 0, requestValidReads: 0 }
  }

  async play(): Promise<void> {
    await this.#events(this.#c.start.actions)
    for (const [i, d] of this.#c.deliveries.entries()) {
      await until(`delivery ${d.key}`, () => this.run.delivered.length > i, 15_000)
      await this.#idle()
      const got = this.run.delivered[i] as string
      const ids = d.items.map((item) => item.identifier)
      if (!ids.includes(got)) {
        this.run.problems.push(`${d.key}: expected ${ids.join('|')}, delivered ${got}`)
        return
      }
      const sco = await this.#sco()
      if (d.uiChecksAt !== 'afterTerminate') await this.#uiChecks(d)
      const unload = d.afterSteps.find((e) => e.type === 'unload') as
        | (SeqEvent & { scoCalls?: unknown })
        | undefined
      if (unload) {
        await sco.evaluate(
          (calls) => (window as unknown as { cts: Cts }).cts.onUnload(calls),
          unload.scoCalls ?? [],
        )
      }
      const mismatches = await sco.evaluate(
        (steps) => (window as unknown as { cts: Cts }).cts.run(steps),
        d.steps,
      )
      this.run.requestValidReads += d.steps.filter((s) =>
        s.element?.startsWith('adl.nav.request_valid.'),
      ).length
      this.run.problems.push(...mismatches)
      await this.#events(d.afterSteps, d, sco)
      if (d.next === null) {
        await this.#idle()
        if (this.run.delivered.length > i + 1) {
          this.run.problems.push(
            `${d.key}: expected nothing further, delivered ${this.run.delivered.at(-1)}`,
          )
        }
      }
    }
    if (this.#c.finalCheck && !(await this.#ended()))
      this.run.problems.push('the session did not end')
  }

  async close(): Promise<void> {
    await this.#page?.close()
  }

  get #frame(): Frame {
    if (!this.#player) throw new Error('no player page')
    return this.#player
  }

  async #launch(packageId: string): Promise<void> {
    await this.#page?.close()
    const id = this.#o.packageIds.get(packageId) ?? [...this.#o.packageIds.values()][0]
    const launched = await this.#o.api.launch(id as string, this.#o.learner)
    const page = await this.#o.browser.context.newPage()
    page.setDefaultTimeout(10_000)
    page.on('response', (r) => {
      const url = r.url()
      if (r.request().method() !== 'POST') return
      if (TRACE && !url.endsWith('/commits')) {
        void r.text().then((text) => {
          console.log(`# ${this.#c.id} ${url.replace(/^.*\/runtime\/sessions\/[^/]+/, '')}`)
          console.log(`#   sent ${r.request().postData()?.slice(0, 200)}`)
          console.log(`#   got ${r.status()} ${text.slice(0, 300)}`)
        })
      }
      const nav = url.endsWith('/navigation')
      if (!nav && !url.endsWith('/deliveries')) return
      void r
        .json()
        .catch(() => ({}))
        .then((body: Record<string, unknown>) => {
          const delivery = (nav ? body.delivery : r.ok() ? body : null) as {
            item_id?: string
          } | null
          if (r.ok() && delivery?.item_id) this.run.delivered.push(delivery.item_id)
          if (nav) this.#navAnswers++
        })
    })
    this.#page = page
    await page.goto(launched.launch_url)
    this.#player = await playerFrame(page)
  }

  /** The SCO frame of the current delivery, once its page has found the API. */
  async #sco(): Promise<Frame> {
    const handle = await this.#frame.locator('iframe.cp-frame').elementHandle()
    const frame = await handle?.contentFrame()
    if (!frame) throw new Error('no SCO frame')
    await frame.locator('#out', { hasText: 'ready' }).waitFor()
    return frame
  }

  /** No move under way in the player. */
  async #idle(): Promise<void> {
    if (!this.#page) return
    await this.#frame.locator('.cp-app[data-busy="false"]').waitFor()
  }

  /** Waits for the answer to the navigation request an action makes, then for the player. */
  async #answered(before: number): Promise<void> {
    await until('the navigation answer', () => this.#navAnswers > before, 15_000)
    await this.#idle()
  }

  async #ended(): Promise<boolean> {
    const title = this.#frame.locator('.cp-screen .cp-message-title')
    if (!(await title.isVisible())) return false
    return END_TITLES.includes(((await title.textContent()) ?? '').trim())
  }

  async #uiChecks(d: SeqDelivery): Promise<void> {
    for (const check of d.uiChecks ?? []) {
      this.run.uiChecks++
      const actual = await this.#answer(check.question, check.subject)
      if (actual !== check.expected) {
        const about = check.subject ? `@${check.subject}` : ''
        this.run.problems.push(
          `${d.key} UI ${check.question}${about}: player shows ${actual}, expected ${check.expected}`,
        )
      }
    }
  }

  /** A UI question answered from what the player shows (a hidden control is not enabled). */
  async #answer(question: string, subject: string | null): Promise<boolean | string> {
    const p = this.#frame
    const [control, adjective] = question.split('.')
    if (control === 'continue' || control === 'previous') {
      const button = p.locator(`.cp-controls ${control === 'continue' ? '.cp-next' : '.cp-prev'}`)
      const shown = (await button.isVisible()) && (await button.isEnabled())
      return adjective === 'enabled' ? shown : !shown
    }
    if (question === 'click.button') return true
    const tocShown = await p.getByRole('navigation', { name: 'Contents' }).isVisible()
    if (question === 'toc.enabled') return tocShown
    const entries = await p.locator('.cp-toc-item').evaluateAll((lis) =>
      lis.map((li) => ({
        title: (li.querySelector('.cp-toc-text, .cp-toc-label')?.textContent ?? '').trim(),
        selectable: li.querySelector('button:enabled') !== null,
      })),
    )
    // The root is the contents' first entry.
    const entry = subject?.startsWith('the activity that corresponds to the root')
      ? entries[0]
      : entries.find((e) => e.title === subject?.trim())
    if (question === 'toc.visible') return entry !== undefined
    if (question === 'toc.enabled.selectable') return tocShown && entry?.selectable === true
    return `unknown question ${question}`
  }

  async #events(events: readonly SeqEvent[], d?: SeqDelivery, sco?: Frame): Promise<void> {
    let terminated = false
    for (const [i, e] of events.entries()) {
      switch (e.type) {
        case 'terminate': {
          if (!sco || terminated) break
          terminated = true
          const before = this.#navAnswers
          await sco.evaluate(() => (window as unknown as { cts: Cts }).cts.terminate())
          if (e.pendingRequest) await this.#answered(before)
          else await this.#settledAfterTerminate()
          break
        }
        case 'unload':
          break
        case 'navigate':
          await this.#navigate(e)
          break
        case 'exitCourse':
          await this.#exitCourse()
          break
        case 'launch':
          await this.#launch(e.package ?? this.#c.id)
          // A choice next is the session's first request: the learner picks from the contents.
          if (events[i + 1]?.type === 'navigate') await this.#idle()
          break
        case 'expect':
          await this.#expect(e.what ?? '', d)
          break
        case 'uiChecks':
          if (d) await this.#uiChecks(d)
          break
      }
    }
  }

  /**
   * A SCO that asked for nothing: the player says the part has ended and waits — or, when the SCO
   * set cmi.exit to time-out or logout (an Exit All), shows the end screen.
   */
  async #settledAfterTerminate(): Promise<void> {
    await this.#frame
      .locator('.cp-notice:visible, .cp-screen .cp-message-title:visible')
      .first()
      .waitFor()
    await this.#idle()
  }

  async #navigate(e: SeqEvent & { targetTitle?: string }): Promise<void> {
    const p = this.#frame
    await this.#idle()
    const before = this.#navAnswers
    switch (e.request) {
      case 'continue':
        await p.locator('.cp-controls .cp-next').click()
        break
      case 'previous':
        await p.locator('.cp-controls .cp-prev').click()
        break
      case 'choice': {
        const title = (e.targetTitle ?? '').trim()
        const entry = e.targets?.[0]?.root
          ? p.locator('.cp-toc-item').first().locator('.cp-toc-link')
          : p.locator('.cp-toc-link', { has: p.locator(`.cp-toc-text:text-is("${title}")`) })
        await entry.click()
        break
      }
      case 'exitAll':
      case 'suspendAll':
        await this.#leave(e.request)
        return
      default:
        throw new Error(`tester request ${e.request} has no control`)
    }
    await this.#answered(before)
  }

  /** The Exit menu of the top bar: Exit course (exitAll) or Save and exit (suspendAll). */
  /**
   * The tester leaves the course: Exit course in the Exit menu; a course without bars (one
   * activity shown) has none, and its learner closes the window, as the player expects.
   */
  async #exitCourse(): Promise<void> {
    if (!this.#page || (await this.#ended())) return
    if (await this.#frame.locator('.cp-exit').isVisible()) return this.#leave('exitAll')
    await this.#page.close()
    this.#page = undefined
  }

  async #leave(request: 'exitAll' | 'suspendAll'): Promise<void> {
    const p = this.#frame
    await this.#idle()
    const before = this.#navAnswers
    await p.locator('.cp-exit').click()
    await p.locator(`.cp-leave [data-leave="${request}"]`).click()
    await this.#answered(before)
  }

  async #expect(what: string, d?: SeqDelivery): Promise<void> {
    const key = d?.key ?? 'start'
    await this.#idle()
    if (what === 'sessionEnds' || what === 'learnerAttemptEnds') {
      if (!(await this.#ended())) this.run.problems.push(`${key}: expected the session to end`)
    } else if (what === 'contentRemovedSessionActive' || what === 'scoRemoved') {
      const frame = await this.#frame.locator('iframe.cp-frame').count()
      if (frame > 0 || (await this.#ended()))
        this.run.problems.push(`${key}: expected the content removed, the session going on`)
    }
  }
}
