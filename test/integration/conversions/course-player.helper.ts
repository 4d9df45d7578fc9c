import type { Frame, Page } from 'playwright-core'
import { bearer, type TestApp } from '../../helpers/app.ts'

/** The generated course's frame inside the hosted player (its page is index.html). */
export async function courseFrame(page: Page, timeoutMs = 20_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const frame = page.frames().find((f) => /\/index\.html(\?|#|$)/.test(f.url()))
    if (frame) {
      await frame.waitForSelector('.counter', { timeout: Math.max(1, deadline - Date.now()) })
      return frame
    }
    if (Date.now() > deadline) throw new Error('the course never appeared in the player')
    await page.waitForTimeout(50)
  }
}

/**
 * Opens a launch URL and goes through the course with the Next button to its last slide,
 * checking the counter at each step. Returns the course frame.
 */
export async function playToLastSlide(
  page: Page,
  launchUrl: string,
  slides: number,
): Promise<Frame> {
  await page.goto(launchUrl)
  const frame = await courseFrame(page)
  for (let n = 2; n <= slides; n++) {
    await frame.click('.nav-button.next')
    await frame.waitForFunction(
      (want) => document.querySelector('.counter')?.textContent?.startsWith(`Slide ${want} of`),
      n,
      { timeout: 10_000 },
    )
  }
  return frame
}

/** Polls the session through the API until it is completed (commits travel asynchronously). */
export async function waitForCompleted(
  t: TestApp,
  key: string,
  sessionId: string,
  timeoutMs = 15_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs
  let last: Record<string, unknown> = {}
  while (Date.now() < deadline) {
    const res = await t.app.inject({ url: `/api/v1/sessions/${sessionId}`, headers: bearer(key) })
    const body = res.json() as { session?: Record<string, unknown> } & Record<string, unknown>
    last = body.session ?? body
    if (last.completion_status === 'completed') return last
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`session ${sessionId} not completed: ${JSON.stringify(last)}`)
}
