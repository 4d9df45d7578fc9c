/**
 * Quick publish: a course title and its slides (title, text in a small markdown subset, an
 * optional picture by https URL) become a hosted SCORM package (POST /quick-publish).
 */
import type { TargetedSubmitEvent } from 'preact'
import { useRef, useState } from 'preact/hooks'
import type { QuickPublishResult } from '../../../http/routes/quick-publish/quick-publish.schemas.ts'
import { api, query } from '../api.client.ts'
import { link } from '../router.ts'
import { useSession } from '../session.ts'
import { Field, useStatus } from '../ui.tsx'

interface SlideDraft {
  key: number
  title: string
  content: string
  image_url: string
  image_alt: string
}

let nextKey = 1
const blankSlide = (): SlideDraft => ({
  key: nextKey++,
  title: '',
  content: '',
  image_url: '',
  image_alt: '',
})

/** The API's slide: empty optional fields left out (an empty alt would mark a picture decorative). */
function slideBody(s: SlideDraft) {
  const image = s.image_url.trim()
  return {
    title: s.title,
    content: s.content,
    ...(image && { image_url: image }),
    ...(image && s.image_alt.trim() && { image_alt: s.image_alt.trim() }),
  }
}

function SlideFields(props: {
  slide: SlideDraft
  index: number
  count: number
  change: (patch: Partial<SlideDraft>) => void
  remove: () => void
}) {
  const { slide, index } = props
  const n = index + 1
  return (
    <fieldset class="card create-slide">
      <legend>Slide {n}</legend>
      <Field label={`Slide ${n} title`}>
        <input
          name={`slide-${n}-title`}
          required
          maxLength={300}
          value={slide.title}
          onInput={(e) => props.change({ title: e.currentTarget.value })}
        />
      </Field>
      <Field
        label={`Slide ${n} text`}
        hint="**bold**, *italic*, and lines starting with “- ” for bullets"
      >
        <textarea
          name={`slide-${n}-content`}
          rows={4}
          maxLength={20000}
          value={slide.content}
          onInput={(e) => props.change({ content: e.currentTarget.value })}
        />
      </Field>
      <Field label={`Slide ${n} picture URL (optional)`} hint="https only; fetched once, now">
        <input
          name={`slide-${n}-image`}
          type="url"
          inputMode="url"
          value={slide.image_url}
          onInput={(e) => props.change({ image_url: e.currentTarget.value })}
        />
      </Field>
      {slide.image_url.trim() && (
        <Field label={`Slide ${n} picture description`} hint="Default: the slide title">
          <input
            name={`slide-${n}-alt`}
            maxLength={1000}
            value={slide.image_alt}
            onInput={(e) => props.change({ image_alt: e.currentTarget.value })}
          />
        </Field>
      )}
      {props.count > 1 && (
        <button type="button" class="small danger" onClick={props.remove}>
          Remove slide {n}
        </button>
      )}
    </fieldset>
  )
}

export function QuickPublishForm() {
  const { mode } = useSession()
  const [slides, setSlides] = useState<SlideDraft[]>(() => [blankSlide()])
  const status = useStatus()
  const list = useRef<HTMLDivElement>(null)
  const change = (key: number, patch: Partial<SlideDraft>) =>
    setSlides((all) => all.map((s) => (s.key === key ? { ...s, ...patch } : s)))
  const add = () => {
    setSlides((all) => [...all, blankSlide()])
    // Focus the new slide's title, so a keyboard user continues where the slide appears.
    requestAnimationFrame(() => {
      const inputs = list.current?.querySelectorAll<HTMLInputElement>('input[name$="-title"]')
      inputs?.[inputs.length - 1]?.focus()
    })
  }
  const submit = (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = event.currentTarget
    const data = new FormData(form)
    void status.run(async () => {
      const made = await api.post<QuickPublishResult>(`/quick-publish${query({ mode })}`, {
        title: String(data.get('title') ?? ''),
        scorm_version: data.get('scorm_version') === '1.2' ? '1.2' : '2004',
        slides: slides.map(slideBody),
      })
      form.reset()
      setSlides([blankSlide()])
      return (
        <p>
          Published “{made.title}” ({made.slide_count} slides, SCORM {made.scorm_version}).{' '}
          <a href={link(`/packages/${made.package_id}`)}>Open the package</a> ·{' '}
          <a href={made.launch_url} target="_blank" rel="noopener">
            Preview it
          </a>{' '}
          · <a href={made.package_url}>Download the zip</a>
        </p>
      )
    })
  }
  return (
    <form class="card create-form" aria-labelledby="qp-title" onSubmit={submit}>
      <h3 id="qp-title">Quick publish from slides</h3>
      <Field label="Course title">
        <input name="title" required maxLength={300} autocomplete="off" />
      </Field>
      <Field label="SCORM version">
        <select name="scorm_version">
          <option value="2004">SCORM 2004 (4th edition)</option>
          <option value="1.2">SCORM 1.2</option>
        </select>
      </Field>
      <div class="create-slides" ref={list}>
        {slides.map((slide, i) => (
          <SlideFields
            key={slide.key}
            slide={slide}
            index={i}
            count={slides.length}
            change={(patch) => change(slide.key, patch)}
            remove={() => setSlides((all) => all.filter((s) => s.key !== slide.key))}
          />
        ))}
      </div>
      <div class="actions">
        <button type="button" class="small" onClick={add} disabled={slides.length >= 200}>
          Add a slide
        </button>
        <button type="submit" disabled={status.busy}>
          {status.busy ? 'Publishing…' : 'Publish course'}
        </button>
      </div>
      {status.node}
    </form>
  )
}
