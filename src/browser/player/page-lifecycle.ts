/**
 * The moments a page can disappear without warning. `visibilitychange → hidden` is the last event
 * a phone reliably delivers before the tab is frozen or killed; `pagehide` is the real unload
 * (or a move into the back/forward cache, when `persisted` is true and the page may come back).
 */

export interface PageLifecycleHandlers {
  /** `unloading` is true only when the page is going away for good. */
  hidden(unloading: boolean): void
  /** The browser is back online: a good moment to retry at once. */
  online(): void
  /** A periodic save of what the SCO set but has not committed yet. */
  autosave(): void
}

export interface PageLifecycle {
  stop(): void
}

/** Autosave every `autosaveMs` (default 60000). */
export function watchPageLifecycle(
  win: Window,
  handlers: PageLifecycleHandlers,
  autosaveMs = 60_000,
): PageLifecycle {
  const onPageHide = (e: PageTransitionEvent) => handlers.hidden(!e.persisted)
  const onVisibility = () => {
    if (win.document.visibilityState === 'hidden') handlers.hidden(false)
  }
  const onOnline = () => handlers.online()
  win.addEventListener('pagehide', onPageHide)
  win.document.addEventListener('visibilitychange', onVisibility)
  win.addEventListener('online', onOnline)
  const timer = win.setInterval(() => handlers.autosave(), autosaveMs)
  return {
    stop() {
      win.removeEventListener('pagehide', onPageHide)
      win.document.removeEventListener('visibilitychange', onVisibility)
      win.removeEventListener('online', onOnline)
      win.clearInterval(timer)
    },
  }
}
