/**
 * player.css. Colours meet WCAG AA (text ≥ 4.5:1, controls and focus rings ≥ 3:1 against white);
 * touch targets are at least 44 px; the controls sit at the bottom where a thumb reaches them.
 * Nothing is loaded from outside the package (no fonts, no url()).
 */
export const PLAYER_CSS = `*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body {
  margin: 0;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  line-height: 1.5;
  color: #1b1b1f;
  background: #fff;
}
.js body {
  display: grid;
  grid-template-rows: auto 1fr auto;
  /* minmax(0, …): a long title must not widen the page beyond the screen. */
  grid-template-columns: minmax(0, 1fr);
  height: 100vh;
  height: 100dvh;
  overflow: hidden;
}
a { color: #1d4ed8; }
:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
.slide:focus { outline: none; }
.slide:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 4px; }
.visually-hidden,
html:not(.show-text) .slide-text-alt:not(:focus-within) {
  position: absolute !important;
  width: 1px;
  height: 1px;
  margin: -1px;
  padding: 0;
  overflow: hidden;
  clip: rect(0 0 0 0);
  clip-path: inset(50%);
  white-space: nowrap;
  border: 0;
}
.skip-link {
  position: absolute;
  top: -10rem;
  left: 0.5rem;
  z-index: 10;
  padding: 0.75rem 1rem;
  color: #fff;
  background: #1d4ed8;
  border-radius: 0 0 8px 8px;
}
.skip-link:focus { top: 0; }

.top-bar {
  display: flex;
  align-items: center;
  gap: 0.75rem;
  padding: 0.5rem max(0.75rem, env(safe-area-inset-right)) 0.5rem max(0.75rem, env(safe-area-inset-left));
  border-bottom: 1px solid #d1d5db;
}
.course-title {
  flex: 1;
  min-width: 0;
  margin: 0;
  font-size: clamp(1rem, 0.9rem + 0.5vw, 1.25rem);
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
}
.counter { margin: 0; white-space: nowrap; color: #374151; }
.bar-button {
  min-height: 44px;
  padding: 0.4rem 0.9rem;
  font: inherit;
  font-weight: 600;
  color: #1d4ed8;
  background: #fff;
  border: 2px solid #1d4ed8;
  border-radius: 8px;
  cursor: pointer;
}
.bar-button[aria-expanded="true"], .bar-button[aria-pressed="true"] { color: #fff; background: #1d4ed8; }
.no-js .bar-button, .no-js .counter, .no-js .controls { display: none; }

.js .stage { position: relative; display: flex; min-height: 0; }
.toc { padding: 1rem; background: #f9fafb; border-bottom: 1px solid #d1d5db; }
.js .toc {
  display: none;
  flex: 0 0 auto;
  width: min(20rem, 85vw);
  overflow: auto;
  border-right: 1px solid #d1d5db;
  border-bottom: 0;
}
.js .toc.open { display: block; }
.toc-heading { margin: 0 0 0.5rem; font-size: 1.1rem; }
.toc ol { margin: 0; padding-left: 2rem; }
.toc a {
  display: block;
  min-height: 44px;
  padding: 0.6rem 0.5rem;
  color: #1b1b1f;
  text-decoration: none;
  border-left: 4px solid transparent;
  border-radius: 4px;
}
.toc a:hover { text-decoration: underline; }
.toc a[aria-current] { font-weight: 700; background: #dbeafe; border-left-color: #1d4ed8; }

.slides { padding: clamp(1rem, 3vw, 2.5rem); }
.js .slides { flex: 1; min-width: 0; overflow: auto; }
.slide { max-width: 62rem; margin: 0 auto; }
.no-js .slide + .slide { margin-top: 2rem; padding-top: 2rem; border-top: 2px solid #d1d5db; }
.slide-text { font-size: clamp(1rem, 0.9rem + 0.5vw, 1.3rem); }
.slide-text h2 { margin: 0 0 1rem; font-size: clamp(1.4rem, 1.1rem + 1.2vw, 2.2rem); line-height: 1.2; }
.slide-text li + li { margin-top: 0.3rem; }
.slide-picture img {
  display: block;
  max-width: 100%;
  height: auto;
  max-height: calc(100vh - 9rem);
  max-height: calc(100dvh - 9rem);
  margin: 0 auto;
  object-fit: contain;
}
/* One slide at a time: its picture takes the room the slide area has (whatever the bars and the
   frame around the course take), so the whole slide shows without scrolling. */
.js .slide.has-picture:not([hidden]) { display: flex; flex-direction: column; height: 100%; }
.js .slide.has-picture .slide-picture { flex: 1 1 auto; min-height: min(12rem, 50vh); }
.js .slide.has-picture .slide-picture img { max-height: 100%; }
.show-text .slide-picture { display: none; }
.slide-images img {
  display: block;
  max-width: 100%;
  height: auto;
  max-height: 60vh;
  margin: 1rem auto;
  object-fit: contain;
}
.table-wrap { margin: 1rem 0; overflow-x: auto; }
table { border-collapse: collapse; }
th, td { padding: 0.4rem 0.6rem; text-align: left; vertical-align: top; border: 1px solid #6b7280; }
th { background: #f3f4f6; }
.slide-media video { display: block; max-width: 100%; height: auto; max-height: 60vh; margin: 1rem auto; }
.slide-media audio { display: block; width: 100%; max-width: 40rem; margin: 1rem auto; }
.notes { margin-top: 1.5rem; padding-top: 0.5rem; color: #374151; border-top: 1px solid #d1d5db; }
.notes summary { min-height: 44px; padding: 0.6rem 0; font-weight: 600; cursor: pointer; }

.controls {
  display: flex;
  align-items: center;
  gap: 0.75rem;
  padding: 0.5rem max(0.75rem, env(safe-area-inset-right)) max(0.5rem, env(safe-area-inset-bottom)) max(0.75rem, env(safe-area-inset-left));
  background: #fff;
  border-top: 1px solid #d1d5db;
}
.nav-button {
  min-width: 48px;
  min-height: 48px;
  padding: 0.5rem 1.25rem;
  font: inherit;
  font-weight: 600;
  color: #fff;
  background: #1d4ed8;
  border: 2px solid #1d4ed8;
  border-radius: 8px;
  cursor: pointer;
}
.nav-button[aria-disabled="true"] { color: #4b5563; background: #e5e7eb; border-color: #e5e7eb; cursor: default; }
.progress { flex: 1; height: 0.5rem; overflow: hidden; background: #e5e7eb; border-radius: 999px; }
.progress-fill { width: 0; height: 100%; background: #1d4ed8; }

@media (max-width: 47.99em) {
  .js .toc.open { position: absolute; inset: 0 auto 0 0; z-index: 2; box-shadow: 0 0 0 100vmax rgba(0, 0, 0, 0.4); }
  /* Title on a row of its own, so the buttons and the counter fit a phone (and wrap on the
     narrowest ones) instead of pushing the page sideways. */
  .top-bar { flex-wrap: wrap; gap: 0.5rem; }
  .course-title { flex: 1 0 100%; order: -1; }
  .bar-button { padding: 0.4rem 0.7rem; }
  .counter { margin-left: auto; font-size: 0.9rem; }
  .nav-button { padding: 0.5rem 0.9rem; }
}
@media (prefers-reduced-motion: no-preference) {
  .progress-fill { transition: width 0.25s ease; }
  .js .slide:not([hidden]) { animation: slide-in 0.2s ease-out; }
  @keyframes slide-in { from { opacity: 0; } to { opacity: 1; } }
}
@media (forced-colors: active) {
  .progress-fill { background: Highlight; }
  .nav-button[aria-disabled="true"] { color: GrayText; }
}
@media print {
  .js body { display: block; height: auto; overflow: visible; }
  .js .slides { overflow: visible; }
  .skip-link, .bar-button, .toc, .controls { display: none !important; }
  .slide[hidden] { display: block !important; }
  .slide { break-after: page; }
}
`
