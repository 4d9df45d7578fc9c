import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import {
  findScormApi,
  type WindowLike,
} from '../../../src/modules/publish/course-generator/player/api-locator.ts'
import { navigationForKey } from '../../../src/modules/publish/course-generator/player/keyboard.ts'
import {
  cmiTimespan,
  isoDuration,
} from '../../../src/modules/publish/course-generator/player/session-time.ts'
import {
  decodeViewed,
  encodeViewed,
} from '../../../src/modules/publish/course-generator/player/viewed-slides.codec.ts'
import { createRuntime } from '../../../src/modules/scorm/data-model/index.ts'

const api2004 = () => ({ Initialize: () => 'true' })
const api12 = () => ({ LMSInitialize: () => 'true' })

/** A chain of frames: index 0 is the course's own window, each next one its parent. */
function frames(count: number, extras: Record<number, object> = {}): WindowLike[] {
  const wins: Record<string, unknown>[] = []
  for (let i = 0; i < count; i++) wins.push({ ...extras[i] })
  wins.forEach((w, i) => {
    w.parent = wins[i + 1] ?? w
    w.top = wins[count - 1]
  })
  return wins as WindowLike[]
}

describe('finding the LMS API', () => {
  test('in the window itself or a parent frame, by version', () => {
    const api = api2004()
    const [course] = frames(4, { 2: { API_1484_11: api, API: api12() } })
    assert.equal(findScormApi(course as WindowLike, '2004'), api)
    const legacy = api12()
    const [course12] = frames(2, { 0: { API: legacy } })
    assert.equal(findScormApi(course12 as WindowLike, '1.2'), legacy)
    assert.equal(findScormApi(course12 as WindowLike, '2004'), null)
  })

  test('up to 7 parents and no further', () => {
    const api = api2004()
    assert.equal(findScormApi(frames(9, { 7: { API_1484_11: api } })[0] as WindowLike, '2004'), api)
    assert.equal(
      findScormApi(frames(10, { 8: { API_1484_11: api } })[0] as WindowLike, '2004'),
      null,
    )
  })

  test('then in the opener (a pop-up launch) and its parents, then the top window opener', () => {
    const api = api12()
    const lmsFrames = frames(3, { 1: { API: api } })
    const [popup] = frames(1)
    Object.assign(popup as object, { opener: lmsFrames[0] })
    assert.equal(findScormApi(popup as WindowLike, '1.2'), api)

    const [inner, top] = frames(2)
    Object.assign(top as object, { opener: { API: api } })
    assert.equal(findScormApi(inner as WindowLike, '1.2'), api)
  })

  test('a frame of another origin (access throws) is passed over', () => {
    const api = api2004()
    const wins = frames(3, { 2: { API_1484_11: api } })
    Object.defineProperty(wins[1], 'API_1484_11', {
      get() {
        throw new DOMException('Blocked a frame', 'SecurityError')
      },
    })
    assert.equal(findScormApi(wins[0] as WindowLike, '2004'), api)
  })

  test('something that is not an API object (no Initialize function) is ignored', () => {
    const [course] = frames(2, {
      0: { API_1484_11: { Initialize: 'nope' } },
      1: { API_1484_11: 'x' },
    })
    assert.equal(findScormApi(course as WindowLike, '2004'), null)
  })

  test('the real run-time is found and recognised', () => {
    const rt = createRuntime({ version: '2004', initial: { learnerId: 'l', learnerName: 'L' } })
    const [course] = frames(2, { 1: { API_1484_11: rt.api } })
    assert.equal(findScormApi(course as WindowLike, '2004'), rt.api)
  })
})

describe('keyboard', () => {
  test('arrows, Page Up/Down, Home and End navigate', () => {
    assert.equal(navigationForKey({ key: 'ArrowRight' }), 'next')
    assert.equal(navigationForKey({ key: 'PageDown' }), 'next')
    assert.equal(navigationForKey({ key: 'ArrowLeft' }), 'previous')
    assert.equal(navigationForKey({ key: 'PageUp' }), 'previous')
    assert.equal(navigationForKey({ key: 'Home', targetTag: 'button' }), 'first')
    assert.equal(navigationForKey({ key: 'End', targetTag: 'a' }), 'last')
    assert.equal(navigationForKey({ key: 'Enter' }), null)
    assert.equal(navigationForKey({ key: 'constructor' }), null)
  })

  test('keys are left to form fields, media players, editable text and shortcuts', () => {
    for (const tag of ['input', 'textarea', 'select', 'video', 'audio'])
      assert.equal(navigationForKey({ key: 'ArrowRight', targetTag: tag }), null, tag)
    assert.equal(navigationForKey({ key: 'Home', targetEditable: true }), null)
    assert.equal(navigationForKey({ key: 'ArrowLeft', altKey: true }), null, 'browser back')
    assert.equal(navigationForKey({ key: 'ArrowRight', metaKey: true }), null)
    assert.equal(navigationForKey({ key: 'End', ctrlKey: true }), null)
  })
})

describe('slides seen, kept in suspend data', () => {
  test('round trip for any set of slides', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3000 }), fc.array(fc.nat(4000)), (total, seen) => {
        const set = new Set(seen.filter((i) => i < total))
        assert.deepEqual(decodeViewed(encodeViewed(set, total), total), set)
      }),
    )
  })

  test('compact enough for SCORM 1.2 (4096 characters) with 10 000 slides', () => {
    const all = new Set(Array.from({ length: 10_000 }, (_, i) => i))
    assert.ok(encodeViewed(all, 10_000).length < 4096)
  })

  test('unreadable data counts as nothing seen', () => {
    for (const bad of ['', 'garbage', '{"seen":12}', '{"seen":"zz"}', 'null', '[]'])
      assert.deepEqual(decodeViewed(bad, 5), new Set(), bad)
    assert.deepEqual(decodeViewed('{"v":1,"seen":"ff"}', 5), new Set([0, 1, 2, 3, 4]))
  })
})

describe('session time', () => {
  test('formats', () => {
    assert.equal(isoDuration(0), 'PT0H0M0.00S')
    assert.equal(isoDuration(3_723_450), 'PT1H2M3.45S')
    assert.equal(cmiTimespan(0), '00:00:00.00')
    assert.equal(cmiTimespan(3_723_450), '01:02:03.45')
    assert.equal(cmiTimespan(10_000 * 3_600_000), '9999:59:59.99')
    assert.equal(isoDuration(-5), 'PT0H0M0.00S', 'a clock going backwards is not negative time')
  })

  test('the LMS accepts every value', () => {
    const initial = { learnerId: 'l', learnerName: 'L' }
    const rt04 = createRuntime({ version: '2004', initial })
    const rt12 = createRuntime({ version: '1.2', initial })
    rt04.api.Initialize('')
    rt12.api.LMSInitialize('')
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), (ms) => {
        assert.equal(
          rt04.api.SetValue('cmi.session_time', isoDuration(ms)),
          'true',
          isoDuration(ms),
        )
        assert.equal(rt12.api.LMSSetValue('cmi.core.session_time', cmiTimespan(ms)), 'true')
      }),
    )
  })
})
