/**
 * Entry point of player.js (bundled by esbuild into every generated course): wires the page
 * written by player-page.renderer.ts to the course session. Plain DOM, no framework, no network.
 */
import type { ScormTarget } from '../course.types.ts'
import { findScormApi } from './api-locator.ts'
import { type CourseSession, startCourseSession } from './course-session.ts'
import { navigationForKey } from './keyboard.ts'

const NARROW = '(max-width: 47.99em)'

function query<T extends Element>(selector: string): T | null {
  return document.querySelector<T>(selector)
}

function setCounter(counter: HTMLElement | null, index: number, total: number, title: string) {
  if (!counter) return
  const visible = document.createElement('span')
  visible.textContent = `Slide ${index + 1} of ${total}`
  // Read out with the number, since focus stays on the button that was pressed.
  const spoken = document.createElement('span')
  spoken.className = 'visually-hidden'
  spoken.textContent = `: ${title}`
  counter.replaceChildren(visible, spoken)
}

// Long on purpose: wires the page once: its DOM nodes are shared by every handler it installs.
function boot(): void {
  const root = document.documentElement
  root.classList.remove('no-js')
  root.classList.add('js')
  const slides = Array.from(document.querySelectorAll<HTMLElement>('section.slide'))
  if (slides.length === 0) return
  const version: ScormTarget = document.body.dataset.scormVersion === '1.2' ? '1.2' : '2004'
  const total = slides.length
  const main = query<HTMLElement>('main')
  const counter = query<HTMLElement>('.counter')
  const progress = query<HTMLElement>('.progress')
  const fill = query<HTMLElement>('.progress-fill')
  const previous = query<HTMLButtonElement>('.nav-button.previous')
  const next = query<HTMLButtonElement>('.nav-button.next')
  const toc = query<HTMLElement>('#toc')
  const tocToggle = query<HTMLButtonElement>('.toc-toggle')
  const textToggle = query<HTMLButtonElement>('.text-toggle')
  const tocLinks = Array.from(document.querySelectorAll<HTMLAnchorElement>('#toc a[data-index]'))
  const titleOf = (i: number) =>
    slides[i]?.querySelector('h2')?.textContent?.trim() || `Slide ${i + 1}`

  const session: CourseSession = startCourseSession({
    version,
    total,
    api: findScormApi(window, version),
  })

  function show(focusSlide: boolean): void {
    const index = session.current()
    const slide = slides[index] as HTMLElement
    slides.forEach((s, i) => {
      s.hidden = i !== index
    })
    for (const media of document.querySelectorAll<HTMLMediaElement>('audio, video')) {
      if (!slide.contains(media) && !media.paused) media.pause()
    }
    // Start fetching the next slide's pictures so "Next" feels instant.
    for (const img of slides[index + 1]?.querySelectorAll('img') ?? []) img.loading = 'eager'
    setCounter(counter, index, total, titleOf(index))
    if (fill) fill.style.width = `${((index + 1) / total) * 100}%`
    progress?.setAttribute('aria-valuenow', String(index + 1))
    progress?.setAttribute('aria-valuetext', `Slide ${index + 1} of ${total}`)
    // aria-disabled rather than disabled: a disabled button drops keyboard focus to <body>.
    previous?.setAttribute('aria-disabled', String(index === 0))
    next?.setAttribute('aria-disabled', String(index === total - 1))
    tocLinks.forEach((a, i) => {
      if (i === index) a.setAttribute('aria-current', 'true')
      else a.removeAttribute('aria-current')
    })
    if (main) main.scrollTop = 0
    if (focusSlide) slide.focus()
  }

  const setToc = (open: boolean) => {
    toc?.classList.toggle('open', open)
    tocToggle?.setAttribute('aria-expanded', String(open))
  }

  previous?.addEventListener('click', () => {
    if (session.navigate('previous')) show(false)
  })
  next?.addEventListener('click', () => {
    if (session.navigate('next')) show(false)
  })
  tocToggle?.addEventListener('click', () => {
    const open = !toc?.classList.contains('open')
    setToc(open)
    if (open) (tocLinks[session.current()] ?? tocLinks[0])?.focus()
  })
  for (const link of tocLinks) {
    link.addEventListener('click', (event) => {
      event.preventDefault()
      session.goTo(Number(link.dataset.index))
      if (window.matchMedia(NARROW).matches) setToc(false)
      show(true)
    })
  }
  textToggle?.addEventListener('click', () => {
    const on = root.classList.toggle('show-text')
    textToggle.setAttribute('aria-pressed', String(on))
  })
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && toc?.classList.contains('open')) {
      setToc(false)
      tocToggle?.focus()
      return
    }
    const target = event.target instanceof HTMLElement ? event.target : null
    const action = navigationForKey({
      key: event.key,
      altKey: event.altKey,
      ctrlKey: event.ctrlKey,
      metaKey: event.metaKey,
      targetTag: target?.tagName.toLowerCase(),
      targetEditable: target?.isContentEditable,
    })
    if (!action) return
    event.preventDefault()
    if (session.navigate(action)) show(false)
  })

  // session.end() runs once; later calls do nothing. 'unload' is for browsers without pagehide.
  const end = () => session.end()
  window.addEventListener('pagehide', end)
  window.addEventListener('unload', end)
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') session.save()
  })

  show(false)
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot)
else boot()
