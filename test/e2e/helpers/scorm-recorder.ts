/**
 * Records every call a SCO makes on the player's `window.API` / `window.API_1484_11`, so a test
 * can compare what the course reported with what the server stored. An init script in the player
 * page (path `/launch/…`, opened directly or inside another site's iframe) puts an accessor for
 * both names on `Window.prototype`: the player's own `window.API = …` lands in its setter, which
 * stores a recording proxy as the window's own property (so the player's `delete window.API`
 * still removes it). Calls go to the test through a binding, in order, and keep arriving while
 * the page unloads (the SCO's Terminate on tab close).
 */
import type { Page } from 'playwright-core'

export interface ScormCall {
  /** One per page load of the player: a relaunch gets a new one. */
  readonly load: string
  /** Counts the player's API objects (one per SCO delivery) within a load, from 1. */
  readonly delivery: number
  readonly fn: string
  readonly args: readonly string[]
  readonly result: string
  /** The API's error code after a call that returned 'false' (or '' for GetValue). */
  readonly error?: string
}

const BINDING = '__cpRecordScorm'

function installRecorder(binding: string): void {
  if (!/^\/launch\//.test(location.pathname)) return
  const load = Math.random().toString(36).slice(2, 10)
  const w = window as unknown as Record<string, (entry: unknown) => Promise<void> | undefined>
  const send = (entry: unknown) => {
    try {
      w[binding]?.(entry)?.catch(() => {})
    } catch {}
  }
  const quiet = /^(LMS)?Get(LastError|ErrorString|Diagnostic)$/
  let deliveries = 0
  const wrap = (api: Record<string, unknown>) => {
    const delivery = ++deliveries
    return new Proxy(api, {
      get(target, prop) {
        const value = Reflect.get(target, prop)
        if (typeof value !== 'function' || typeof prop !== 'string' || quiet.test(prop)) {
          return value
        }
        return (...args: unknown[]) => {
          const result = String(value.apply(target, args))
          const failed = result === 'false' || (/GetValue$/.test(prop) && result === '')
          const lastError = (target.GetLastError ?? target.LMSGetLastError) as
            | (() => string)
            | undefined
          send({
            load,
            delivery,
            fn: prop,
            args: args.map((a) => String(a)),
            result,
            ...(failed && lastError ? { error: String(lastError.call(target)) } : {}),
          })
          return result
        }
      },
    })
  }
  for (const name of ['API', 'API_1484_11']) {
    Object.defineProperty(Window.prototype, name, {
      configurable: true,
      get: () => undefined,
      set(this: Window, api: unknown) {
        const value =
          api && typeof api === 'object' ? wrap(api as Record<string, unknown>) : (api as unknown)
        Object.defineProperty(this, name, {
          value,
          writable: true,
          configurable: true,
          enumerable: true,
        })
      },
    })
  }
}

export interface ScormLog {
  readonly calls: ScormCall[]
  /** Values the SCO set for `element` (SetValue / LMSSetValue that succeeded), in order. */
  setValues(element: string, load?: string): string[]
  /** The last value the SCO set for `element`. */
  lastSet(element: string, load?: string): string | undefined
  /** Calls of one function name, e.g. 'Terminate' or 'LMSInitialize'. */
  called(fn: string, load?: string): ScormCall[]
  /** The player page loads seen, in order. */
  loads(): string[]
  /** Failed calls, except a 2004 GetValue of an element not set yet (403). */
  failures(): ScormCall[]
}

export async function recordScormCalls(page: Page): Promise<ScormLog> {
  const calls: ScormCall[] = []
  await page.exposeBinding(BINDING, (_source, entry: ScormCall) => {
    calls.push(entry)
  })
  await page.addInitScript(installRecorder, BINDING)
  const of = (load?: string) => (load ? calls.filter((c) => c.load === load) : calls)
  const setValues = (element: string, load?: string) =>
    of(load)
      .filter((c) => /SetValue$/.test(c.fn) && c.args[0] === element && c.result === 'true')
      .map((c) => c.args[1] ?? '')
  return {
    calls,
    setValues,
    lastSet: (element, load) => setValues(element, load).at(-1),
    called: (fn, load) => of(load).filter((c) => c.fn === fn),
    loads: () => [...new Set(calls.map((c) => c.load))],
    failures: () =>
      calls.filter(
        (c) =>
          c.error !== undefined && c.error !== '0' && !(c.fn === 'GetValue' && c.error === '403'),
      ),
  }
}
