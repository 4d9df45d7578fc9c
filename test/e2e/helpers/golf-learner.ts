/**
 * A learner working through Rustici's golf sample courses (../shared/fixtures/scorm/golf) in the
 * real player: the player page holds the SCO in `iframe.cp-frame`; the single-SCO golf courses
 * show their pages in `#contentFrame` inside it, with their own Previous / Next / Exit buttons.
 */
import assert from 'node:assert/strict'
import type { Frame, FrameLocator, Page } from 'playwright-core'

/** The pages of the single-SCO "basic runtime calls" courses, in the order Next shows them. */
const BASIC_PAGES = [
  'Playing/Playing.html',
  'Playing/Par.html',
  'Playing/Scoring.html',
  'Playing/OtherScoring.html',
  'Playing/RulesOfGolf.html',
  'Etiquette/Course.html',
  'Etiquette/Distracting.html',
  'Etiquette/Play.html',
  'Handicapping/Overview.html',
  'Handicapping/CalculatingHandicap.html',
  'Handicapping/CalculatingScore.html',
  'Handicapping/Example.html',
  'HavingFun/HowToHaveFun.html',
  'HavingFun/MakeFriends.html',
]
const ASSESSMENT = 'shared/assessmenttemplate.html'

/** SCORM 2004 3rd Edition course: 14 pages and the assessment (15 questions). */
export const PAGES_2004 = [...BASIC_PAGES, ASSESSMENT]
/** singlescobasic (1.2) has one more page before the assessment. */
export const PAGES_12 = [...BASIC_PAGES, 'HavingFun/HowToBeStylish.html', ASSESSMENT]

export interface Dialogs {
  /** Every alert/confirm the course showed, as `type: message`. */
  readonly seen: string[]
  /** Alerts only: the golf courses use them to report SCORM errors. */
  alerts(): string[]
}

/**
 * The golf courses ask with `confirm()` whether to resume and whether to save on exit; the
 * learner says yes. Alerts are dismissed and kept for the test to check (they report errors).
 */
export function answerDialogs(page: Page): Dialogs {
  const seen: string[] = []
  page.on('dialog', (dialog) => {
    seen.push(`${dialog.type()}: ${dialog.message()}`)
    const answer = dialog.type() === 'confirm' ? dialog.accept() : dialog.dismiss()
    answer.catch(() => {})
  })
  return { seen, alerts: () => seen.filter((s) => s.startsWith('alert')) }
}

/** The player's document: the page itself, or the frame another site embeds it in. */
export async function playerFrame(page: Page, timeoutMs = 15_000): Promise<Frame> {
  return waitForFrame(page, (url) => url.pathname.startsWith('/launch/'), 'the player', timeoutMs)
}

/** The SCO frame inside the player. */
export function scoFrame(player: Frame): FrameLocator {
  return player.frameLocator('iframe.cp-frame')
}

async function waitForFrame(
  page: Page,
  match: (url: URL) => boolean,
  what: string,
  timeoutMs: number,
): Promise<Frame> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const frame = page.frames().find((f) => {
      try {
        return !f.isDetached() && match(new URL(f.url()))
      } catch {
        return false
      }
    })
    if (frame) {
      await frame.waitForLoadState('load')
      return frame
    }
    if (Date.now() > deadline) {
      const urls = page.frames().map((f) => f.url())
      throw new Error(`timed out waiting for ${what}; frames: ${urls.join(', ')}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Waits until a frame of the package shows `path` (relative to the package root), loaded. */
export function coursePage(page: Page, path: string, timeoutMs = 10_000): Promise<Frame> {
  return waitForFrame(
    page,
    (url) => /^\/c\/[^/]+\//.test(url.pathname) && url.pathname.endsWith(`/${path}`),
    path,
    timeoutMs,
  )
}

/** Clicks the course's own Next button until page `to` of `pages` shows. */
export async function nextUntil(
  page: Page,
  sco: FrameLocator,
  pages: readonly string[],
  from: number,
  to: number,
): Promise<void> {
  for (let i = from + 1; i <= to; i++) {
    await sco.locator('#butNext').click()
    await coursePage(page, pages[i] as string)
  }
}

/**
 * Answers the golf knowledge check the way the page lays it out (the right answer of each
 * question sits in a `.correctAnswer` block; numeric ones print it in brackets), except that the
 * first `wrong` multiple-choice or true/false questions get a wrong choice; then submits. Returns the score the page shows,
 * after checking it is the course's own rounding of right / total.
 */
export async function answerAssessment(
  frame: Frame,
  options: { wrong?: number } = {},
): Promise<{ score: number; questions: number }> {
  const questions = frame.locator('.question')
  const total = await questions.count()
  assert.ok(total > 0, 'the assessment shows questions')
  let right = 0
  let wrong = options.wrong ?? 0
  for (let i = 0; i < total; i++) {
    const q = questions.nth(i)
    const radio = q.locator('.correctAnswer input[type=radio]')
    const wrongChoice = q.locator('.answer input[type=radio]')
    if (wrong > 0 && (await wrongChoice.count()) > 0) {
      await wrongChoice.first().check()
      wrong--
      continue
    }
    if ((await radio.count()) > 0) {
      await radio.first().check()
    } else {
      const text = ((await q.locator('.correctAnswer').textContent()) ?? '').match(/\((\d+)\)/)?.[1]
      assert.ok(text, `question ${i} shows its numeric answer`)
      await q.locator('.correctAnswer input[type=text]').fill(text)
    }
    right++
  }
  await frame.getByRole('button', { name: 'Submit Answers' }).click()
  const heading = (await frame.locator('h3', { hasText: /^Score: \d+$/ }).textContent()) ?? ''
  const score = Number(heading.replace('Score: ', ''))
  assert.equal(score, Math.round((right * 100) / total))
  return { score, questions: total }
}

/** Seconds in a SCORM 2004 / ISO 8601 duration (`PT1H2M3.5S`, `P1DT2S`); years/months refused. */
export function isoSeconds(duration: string): number {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(duration)
  if (!m) throw new Error(`not a duration this test reads: ${duration}`)
  const [, d, h, min, s] = m
  return Number(d ?? 0) * 86400 + Number(h ?? 0) * 3600 + Number(min ?? 0) * 60 + Number(s ?? 0)
}

/** Seconds in a SCORM 1.2 CMITimespan (`HHHH:MM:SS.SS`). */
export function timespanSeconds(timespan: string): number {
  const m = /^(\d{2,4}):(\d{2}):(\d{2}(?:\.\d{1,2})?)$/.exec(timespan)
  if (!m) throw new Error(`not a CMITimespan: ${timespan}`)
  return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3])
}
