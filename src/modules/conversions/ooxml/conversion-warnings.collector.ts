import type { ConversionWarning, WarningCode } from './presentation.types.ts'

const ORDER: readonly WarningCode[] = [
  'no_slides',
  'no_visible_slides',
  'missing_parts',
  'macros',
  'ole_objects',
  'linked_pictures',
  'linked_media',
  'unsupported_media',
  'unsupported_links',
  'animations',
  'transitions',
]

/** Collects warnings per kind and phrases each once, naming the slides and a few examples. */
export class WarningCollector {
  readonly #slides = new Map<WarningCode, Set<number>>()
  readonly #details = new Map<WarningCode, Set<string>>()

  add(code: WarningCode, slide?: number | null, detail?: string | null): void {
    let slides = this.#slides.get(code)
    if (!slides) {
      slides = new Set()
      this.#slides.set(code, slides)
      this.#details.set(code, new Set())
    }
    if (slide) slides.add(slide)
    if (detail) this.#details.get(code)?.add(detail)
  }

  list(): ConversionWarning[] {
    return ORDER.filter((code) => this.#slides.has(code)).map((code) => {
      const slides = [...(this.#slides.get(code) ?? [])].sort((a, b) => a - b)
      const details = [...(this.#details.get(code) ?? [])]
      return { code, slides, message: phrase(code, onSlides(slides), examples(details)) }
    })
  }
}

function onSlides(slides: readonly number[]): string {
  if (slides.length === 0) return ''
  return slides.length === 1 ? ` on slide ${slides[0]}` : ` on slides ${slides.join(', ')}`
}

function examples(details: readonly string[]): string {
  if (details.length === 0) return ''
  const shown = details.slice(0, 5).join(', ')
  return ` (${shown}${details.length > 5 ? ', …' : ''})`
}

function phrase(code: WarningCode, where: string, ex: string): string {
  switch (code) {
    case 'no_slides':
      return 'The presentation has no slides.'
    case 'no_visible_slides':
      return 'Every slide of the presentation is hidden.'
    case 'missing_parts':
      return `Parts of the file are missing or damaged and were skipped${where}${ex}.`
    case 'macros':
      return 'The file contains macros (VBA). Macros are never run and are not carried over.'
    case 'ole_objects':
      return `Embedded objects${where}${ex} are shown as pictures only; their contents are not carried over.`
    case 'linked_pictures':
      return `Pictures${where} are linked to files outside the presentation${ex}; they are not fetched and will be missing. Insert them into the presentation instead.`
    case 'linked_media':
      return `Audio or video${where} is linked to files outside the presentation${ex}; it is not included. Embed it in PowerPoint instead.`
    case 'unsupported_media':
      return `Audio or video${where} is in a format browsers cannot play${ex}. Convert it to MP4 (video) or MP3 (audio).`
    case 'unsupported_links':
      return `Links${where} open files, programs, macros or custom shows${ex}, which a web course cannot do; they are kept as text only.`
    case 'animations':
      return `Animations${where} are not carried over; each slide is shown in its final state.`
    case 'transitions':
      return `Slide transitions${where} are not carried over.`
  }
}
