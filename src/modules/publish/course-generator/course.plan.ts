import { randomUUID } from 'node:crypto'
import { AppError } from '../../../shared/app-error.ts'
import type {
  AssetSource,
  Block,
  CourseInput,
  RenderedImageInput,
  ScormTarget,
} from './course.types.ts'
import { cleanText } from './text.escape.ts'

/** A file to copy into the zip under `assets/`. */
export interface PlannedAsset {
  path: string
  source: AssetSource
  /** Images, audio and video are compressed already; deflating them again only costs time. */
  compress: boolean
  /**
   * A picture of a whole slide. The zip writes these after everything else: a renderer may
   * still be drawing them while the rest is written (conversion.pipeline.ts).
   */
  slidePicture: boolean
}

export interface PlannedSlide {
  /** 1-based. */
  number: number
  /** Element id and URL fragment: `slide-N`. */
  id: string
  title: string
  blocks: Block[]
  notes: string | null
  images: { path: string; altText: string }[]
  rendered: string | null
  media: { path: string; kind: 'audio' | 'video'; title: string; poster: string | null }[]
}

export interface CoursePlan {
  title: string
  version: ScormTarget
  language: string
  identifier: string
  slides: PlannedSlide[]
  assets: PlannedAsset[]
}

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/jpg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/svg+xml': 'svg',
}
const RENDER_TYPES: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/jpg': 'jpg',
}
const MEDIA_TYPES: Readonly<Record<string, string>> = {
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/ogg': 'ogv',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/mp4': 'm4a',
  'audio/x-m4a': 'm4a',
  'audio/aac': 'aac',
  'audio/ogg': 'ogg',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/flac': 'flac',
  'audio/webm': 'weba',
}
/** Formats that gain from deflate (everything else is compressed already). */
const COMPRESSIBLE = new Set(['svg', 'wav'])

const LANGUAGE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/

/** Readable, collision-free part of a packaged name: `Photo 1 (final).PNG` → `photo-1-final`. */
function slug(fileName: string): string {
  const base = fileName.replace(/^.*[\\/]/, '').replace(/\.[^.]*$/, '')
  return base
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '')
}

function identifierOf(value: string | undefined): string {
  const kept = (value ?? '').replace(/[^A-Za-z0-9_.-]/g, '')
  // An XML ID (NCName) must start with a letter or underscore.
  if (kept === '') return `courseport-${randomUUID()}`
  return /^[A-Za-z_]/.test(kept) ? kept : `_${kept}`
}

function mediaType(contentType: string): string {
  return contentType.split(';')[0]?.trim().toLowerCase() ?? ''
}

/** Browsers show it in `<img>` and the generator accepts it (EMF/WMF/TIFF are neither). */
export function isWebImageType(contentType: string | null): boolean {
  return contentType !== null && Object.hasOwn(IMAGE_TYPES, mediaType(contentType))
}

/** A media type the generator packages (the formats browsers play). */
export function isWebMediaType(contentType: string | null): boolean {
  return contentType !== null && Object.hasOwn(MEDIA_TYPES, mediaType(contentType))
}

// Long on purpose: one pass that collects every problem and every file name, so the problems come
// back together.
/**
 * Checks the input (every problem at once, as a `validation_failed` AppError with
 * `details.problems`) and decides every packaged file name.
 */
export function planCourse(input: CourseInput): CoursePlan {
  const problems: string[] = []
  const assets: PlannedAsset[] = []
  const title = cleanText(input.title ?? '').trim()
  if (title === '') problems.push('The course needs a title.')
  if (input.scormVersion !== '1.2' && input.scormVersion !== '2004')
    problems.push(`scormVersion must be '1.2' or '2004', not '${String(input.scormVersion)}'.`)
  const language = input.language ?? 'en'
  if (!LANGUAGE.test(language))
    problems.push(`'${language}' is not a language tag such as 'en' or 'pt-BR'.`)
  if (!Array.isArray(input.slides) || input.slides.length === 0)
    problems.push('The course needs at least one slide.')
  const slides = Array.isArray(input.slides) ? input.slides : []
  const pad = Math.max(3, String(slides.length).length)

  const addAsset = (
    what: string,
    source: AssetSource,
    contentType: string,
    types: Readonly<Record<string, string>>,
    name: string,
    slidePicture = false,
  ): string | null => {
    const ext = types[mediaType(contentType)]
    if (!ext) {
      const allowed = [...new Set(Object.keys(types))].join(', ')
      problems.push(`${what} has the type '${contentType}'; use one of ${allowed}.`)
      return null
    }
    const hasBytes = source.bytes instanceof Uint8Array
    const hasOpen = typeof source.open === 'function'
    if (hasBytes === hasOpen) {
      problems.push(`${what} needs either its bytes or a function that opens them (exactly one).`)
      return null
    }
    const path = `assets/${name}.${ext}`
    assets.push({
      path,
      source: { bytes: source.bytes, open: source.open },
      compress: COMPRESSIBLE.has(ext),
      slidePicture,
    })
    return path
  }
  const addPicture = (
    what: string,
    picture: RenderedImageInput,
    name: string,
    slidePicture = false,
  ) => addAsset(what, picture, picture.contentType, RENDER_TYPES, name, slidePicture)

  const planned = slides.map((slide, i): PlannedSlide => {
    const number = i + 1
    const prefix = `s${String(number).padStart(pad, '0')}`
    const where = `Slide ${number}`
    const images = (slide.images ?? []).flatMap((image, k) => {
      const base = [prefix, `img${k + 1}`, slug(image.fileName ?? '')].filter(Boolean).join('-')
      const path = addAsset(
        `${where}, image ${k + 1}`,
        image,
        image.contentType ?? '',
        IMAGE_TYPES,
        base,
      )
      return path ? [{ path, altText: cleanText(image.altText ?? '').trim() }] : []
    })
    const rendered = slide.renderedImage
      ? addPicture(`${where}, rendered slide`, slide.renderedImage, `${prefix}-slide`, true)
      : null
    const media = (slide.media ?? []).flatMap((m, k) => {
      const base = [prefix, `media${k + 1}`, slug(m.fileName ?? '')].filter(Boolean).join('-')
      const what = `${where}, ${m.kind} ${k + 1}`
      if (m.kind !== 'audio' && m.kind !== 'video') {
        problems.push(`${what}: kind must be 'audio' or 'video'.`)
        return []
      }
      const path = addAsset(what, m, m.contentType ?? '', MEDIA_TYPES, base)
      const poster = m.poster ? addPicture(`${what}, poster`, m.poster, `${base}-poster`) : null
      const label =
        cleanText(m.title ?? '').trim() || `${m.kind === 'audio' ? 'Audio' : 'Video'} ${k + 1}`
      return path ? [{ path, kind: m.kind, title: label, poster }] : []
    })
    const notes = cleanText(slide.notes ?? '').trim()
    return {
      number,
      id: `slide-${number}`,
      title: cleanText(slide.title ?? '').trim() || `Slide ${number}`,
      blocks: Array.isArray(slide.blocks) ? slide.blocks : [],
      notes: notes === '' ? null : notes,
      images,
      rendered,
      media,
    }
  })

  if (problems.length > 0) {
    const [first, ...rest] = problems
    const more =
      rest.length > 0 ? ` (and ${rest.length} more problem${rest.length > 1 ? 's' : ''})` : ''
    throw new AppError('validation_failed', `${first}${more}`, { problems })
  }
  return {
    title,
    version: input.scormVersion,
    language,
    identifier: identifierOf(input.identifier),
    slides: planned,
    assets,
  }
}
