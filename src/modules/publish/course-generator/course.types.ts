import type { Readable } from 'node:stream'

/**
 * The input of the course generator: plain data (JSON apart from asset bytes), shared by quick
 * publish (slides written as markdown-subset text) and .pptx conversion (slides read from OOXML).
 */

export type ScormTarget = '1.2' | '2004'

/** Opens an asset's bytes when the zip writer reaches it (one at a time, so few files are open). */
export type StreamFactory = () => Readable | Promise<Readable>

/** An inline piece of text. `\n` inside `text` is a line break. */
export interface TextRun {
  text: string
  bold?: boolean
  italic?: boolean
  /** Absolute http(s) URL, opened in a new tab; any other scheme is dropped (the text stays). */
  link?: string | null
}

export interface ListItem {
  /** Nesting depth, 0 = top level. A jump of more than one level is flattened to one. */
  level: number
  runs: TextRun[]
}

export type Block =
  | { kind: 'paragraph'; runs: TextRun[] }
  | { kind: 'list'; items: ListItem[] }
  | {
      kind: 'table'
      /** Cell text, row by row. */
      rows: string[][]
      /** The first row holds column headings. Default false. */
      header?: boolean
    }

/** Bytes of a packaged file: exactly one of `bytes` or `open`. */
export interface AssetSource {
  bytes?: Uint8Array
  open?: StreamFactory
}

export interface ImageInput extends AssetSource {
  /** Original name; only used to make the packaged name readable. */
  fileName: string
  /** Text alternative; '' marks the image decorative (screen readers skip it). */
  altText: string
  /** image/png, image/jpeg, image/gif, image/webp, image/avif or image/svg+xml. */
  contentType: string
}

/** A picture of the whole slide (e.g. rendered by LibreOffice). */
export interface RenderedImageInput extends AssetSource {
  /** image/png or image/jpeg. */
  contentType: string
}

export interface MediaInput extends AssetSource {
  fileName: string
  kind: 'audio' | 'video'
  /** A type browsers play: video/mp4, video/webm, video/ogg, audio/mpeg, audio/mp4, … */
  contentType: string
  /** Accessible name of the player; default "Audio N" / "Video N". */
  title?: string
  /** Picture shown before a video plays. */
  poster?: RenderedImageInput
}

export interface SlideInput {
  /** Shown as the slide heading and in the table of contents; blank becomes "Slide N". */
  title: string
  blocks: Block[]
  /** Speaker notes, shown collapsed under the slide. `\n` separates lines. */
  notes?: string | null
  images: ImageInput[]
  /**
   * When given, the picture is what sighted learners see; the slide's text (title, blocks, image
   * alt texts) stays in the page for screen readers, search and the "Text version" toggle.
   */
  renderedImage?: RenderedImageInput | null
  media?: MediaInput[]
}

export interface CourseInput {
  title: string
  /** '2004' is written as SCORM 2004 4th Edition. */
  scormVersion: ScormTarget
  /** BCP 47 tag of the content (html lang). Default 'en'. */
  language?: string
  /** Manifest identifier; default a random `courseport-…` id. Letters, digits, `-_.` kept. */
  identifier?: string
  slides: SlideInput[]
}

export interface GenerateOptions {
  /** Modification time stored for every zip entry. Default: now. */
  mtime?: Date
}

export interface GeneratedCourse {
  /** Every path in the zip, imsmanifest.xml first. */
  files: string[]
  /** Size of the zip written. */
  bytes: number
}
