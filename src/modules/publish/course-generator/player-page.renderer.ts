import type { CoursePlan } from './course.plan.ts'
import { slideSectionHtml } from './slide-section.renderer.ts'
import { escapeHtml, textHtml } from './text.escape.ts'

/**
 * Everything loads from the package itself ('self'); the policy also stops any markup that got
 * through from running script. The referrer is withheld because the content URL carries a token.
 */
const CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "media-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ')

/** The SCO's launch page (index.html): all slides pre-rendered, escaped at generation time. */
export function playerPageHtml(plan: CoursePlan): string {
  const total = plan.slides.length
  const title = escapeHtml(plan.title)
  const hasPictures = plan.slides.some((s) => s.rendered)
  const toc = plan.slides
    .map((s) => `<li><a href="#${s.id}" data-index="${s.number - 1}">${textHtml(s.title)}</a></li>`)
    .join('\n')
  const textToggle = hasPictures
    ? '\n<button type="button" class="bar-button text-toggle" aria-pressed="false">Text version</button>'
    : ''
  return `<!DOCTYPE html>
<html lang="${escapeHtml(plan.language)}" class="no-js">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<link rel="stylesheet" href="player.css">
<script src="player.js" defer></script>
</head>
<body data-scorm-version="${plan.version}" data-slide-count="${total}">
<a class="skip-link" href="#content">Skip to the slide</a>
<header class="top-bar">
<button type="button" class="bar-button toc-toggle" aria-controls="toc" aria-expanded="false">Contents</button>
<h1 class="course-title">${title}</h1>${textToggle}
<p class="counter" aria-live="polite" aria-atomic="true">Slide 1 of ${total}</p>
</header>
<div class="stage">
<nav id="toc" class="toc" aria-label="Table of contents">
<h2 class="toc-heading">Contents</h2>
<ol>
${toc}
</ol>
</nav>
<main id="content" class="slides" tabindex="-1">
${plan.slides.map(slideSectionHtml).join('\n')}
</main>
</div>
<nav class="controls" aria-label="Slide navigation">
<button type="button" class="nav-button previous" aria-keyshortcuts="ArrowLeft">
<span aria-hidden="true">&lsaquo;</span> Previous</button>
<div class="progress" role="progressbar" aria-label="Position in the course" aria-valuemin="1" aria-valuemax="${total}" aria-valuenow="1" aria-valuetext="Slide 1 of ${total}"><div class="progress-fill"></div></div>
<button type="button" class="nav-button next" aria-keyshortcuts="ArrowRight">Next <span aria-hidden="true">&rsaquo;</span></button>
</nav>
</body>
</html>
`
}
