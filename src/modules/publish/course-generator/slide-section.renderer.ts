import { blocksHtml } from './blocks-html.renderer.ts'
import type { PlannedSlide } from './course.plan.ts'
import { escapeHtml, textHtml } from './text.escape.ts'

function imagesHtml(slide: PlannedSlide): string {
  if (slide.images.length === 0) return ''
  const images = slide.images
    .map((i) => `<img src="${escapeHtml(i.path)}" alt="${escapeHtml(i.altText)}" loading="lazy">`)
    .join('')
  return `<div class="slide-images">${images}</div>`
}

function mediaHtml(slide: PlannedSlide): string {
  return slide.media
    .map((m) => {
      const src = escapeHtml(m.path)
      const poster = m.poster ? ` poster="${escapeHtml(m.poster)}"` : ''
      const fallback = `<a href="${src}" download>Download the ${m.kind} (${escapeHtml(m.title)})</a>`
      return `<div class="slide-media"><${m.kind} controls preload="metadata" playsinline src="${src}"${poster} aria-label="${escapeHtml(m.title)}">${fallback}</${m.kind}></div>`
    })
    .join('\n')
}

function notesHtml(notes: string | null): string {
  if (!notes) return ''
  const paragraphs = notes
    .split(/\n{2,}/)
    .map((p) => `<p>${textHtml(p.trim())}</p>`)
    .join('')
  return `<details class="notes"><summary>Speaker notes</summary><div class="notes-body">${paragraphs}</div></details>`
}

/**
 * One slide as a `<section>`. Without JavaScript every section shows, one after the other, so the
 * course still reads top to bottom. With a rendered picture the picture is what sighted learners
 * see (alt="" because the same content follows as text) and the text stays available to screen
 * readers, search and the "Text version" toggle.
 */
export function slideSectionHtml(slide: PlannedSlide): string {
  const heading = `<h2 id="${slide.id}-title">${textHtml(slide.title)}</h2>`
  const text = [heading, blocksHtml(slide.blocks, slide.number), imagesHtml(slide)]
    .filter(Boolean)
    .join('\n')
  const body = slide.rendered
    ? `<div class="slide-picture"><img src="${escapeHtml(slide.rendered)}" alt="" loading="lazy"></div>\n<div class="slide-text slide-text-alt">\n${text}\n</div>`
    : `<div class="slide-text">\n${text}\n</div>`
  const parts = [body, mediaHtml(slide), notesHtml(slide.notes)].filter(Boolean).join('\n')
  const cls = slide.rendered ? 'slide has-picture' : 'slide'
  return `<section class="${cls}" id="${slide.id}" data-index="${slide.number - 1}" tabindex="-1" aria-labelledby="${slide.id}-title">\n${parts}\n</section>`
}
