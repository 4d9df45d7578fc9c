/**
 * The JSON-serialisable structure the OOXML reader returns. Everything here is plain data
 * (strings, numbers, booleans, arrays, objects) so it can be stored, sent to a worker or cached.
 */

/** Which kind of PowerPoint file the main part's content type declares. */
export type PresentationFormat = 'pptx' | 'pptm' | 'potx' | 'potm' | 'ppsx' | 'ppsm'

/** Why an upload was refused; sent as `details.reason` of the `unprocessable` AppError. */
export type RejectionReason =
  | 'empty'
  | 'not_zip'
  | 'pdf'
  | 'legacy_ppt'
  | 'encrypted'
  | 'legacy_office'
  | 'keynote'
  | 'opendocument'
  | 'not_presentation'
  | 'corrupt'
  | 'too_large'

export type WarningCode =
  | 'animations'
  | 'transitions'
  | 'macros'
  | 'ole_objects'
  | 'linked_pictures'
  | 'linked_media'
  | 'unsupported_media'
  | 'unsupported_links'
  | 'missing_parts'
  | 'no_slides'
  | 'no_visible_slides'

/** Something a converter cannot carry over, said once per kind with the slides it affects. */
export interface ConversionWarning {
  code: WarningCode
  message: string
  /** 1-based slide numbers (presentation order, hidden slides counted); empty if deck-wide. */
  slides: number[]
}

export interface PresentationProbe {
  format: PresentationFormat
  /** docProps/core.xml dc:title, else the first visible slide's title placeholder, else null. */
  title: string | null
  /** All slides listed in presentation order whose part exists (hidden ones included). */
  slideCount: number
  visibleSlideCount: number
  hiddenSlideCount: number
  warnings: ConversionWarning[]
}

export interface SlideSize {
  widthEmu: number
  heightEmu: number
  /** `p:sldSz/@type`, e.g. `screen4x3`, `screen16x9`; null when absent (custom). */
  type: string | null
}

export interface CoreProperties {
  title: string | null
  subject: string | null
  creator: string | null
  description: string | null
}

export interface TextRun {
  text: string
  bold: boolean
  italic: boolean
  link: LinkTarget | null
}

export interface Paragraph {
  /** Runs joined; `a:br` becomes `\n`. */
  text: string
  /** Outline level, 0-based as in OOXML (`a:pPr/@lvl`, 0..8). */
  level: number
  bullet: boolean
  runs: TextRun[]
}

/** What a placeholder is for; `text` is a shape that is not a placeholder (a text box). */
export type TextRole = 'title' | 'subtitle' | 'body' | 'footer' | 'other' | 'text'

export type SlideBlock =
  | {
      kind: 'text'
      role: TextRole
      /** `p:ph/@type` (defaults to `obj` for a placeholder without one); null if not a placeholder. */
      placeholder: string | null
      shapeName: string
      paragraphs: Paragraph[]
    }
  | {
      kind: 'table'
      shapeName: string
      /** Cell text row by row; a cell covered by a merge is ''. */
      rows: string[][]
    }
  | {
      kind: 'smartart'
      shapeName: string
      /** Node text of the diagram, in the order of the data model. */
      paragraphs: Paragraph[]
    }

export type LinkTarget =
  | { type: 'url'; url: string }
  | { type: 'slide'; slideIndex: number | null }
  | {
      type: 'navigation'
      jump:
        | 'firstslide'
        | 'lastslide'
        | 'nextslide'
        | 'previousslide'
        | 'lastslideviewed'
        | 'endshow'
    }
  /** A file on the author's machine or network (including other presentations). */
  | { type: 'file'; path: string }
  /** Macro, program, custom show, non-web URL scheme: reported, never followed. */
  | { type: 'unsupported'; action: string; detail: string | null }

export interface SlideLink {
  /** Text of the run, or of the whole shape for a shape-level click action; null if none. */
  text: string | null
  shapeName: string
  scope: 'text' | 'shape'
  target: LinkTarget
}

export interface SlideImage {
  shapeName: string
  /** `p:cNvPr/@descr`; null when absent or blank. */
  altText: string | null
  /** Marked decorative in PowerPoint (accessibility: no alt text needed). */
  decorative: boolean
  /** Path inside the zip (no leading slash); null when linked or missing. */
  partName: string | null
  contentType: string | null
  /** SVG original of the picture when PowerPoint stored one next to the raster fallback. */
  svgPartName: string | null
  /** Target of a `TargetMode="External"` relationship: reported, never fetched. */
  linkedUrl: string | null
  /** The relationship or the part it points to is absent. */
  missing: boolean
  usage: 'picture' | 'fill'
}

export interface SlideMedia {
  kind: 'video' | 'audio'
  shapeName: string
  partName: string | null
  contentType: string | null
  linkedUrl: string | null
  /** The picture shown before playback (the shape's own image). */
  posterPartName: string | null
  /** Embedded and in a format browsers play (mp4, webm, ogg, mp3, m4a, aac, wav, flac). */
  playable: boolean
  missing: boolean
  usage: 'shape' | 'sound_effect'
}

export interface SlideObject {
  kind: 'chart' | 'smartart' | 'ole' | 'ink'
  shapeName: string
  altText: string | null
  partName: string | null
  /** OLE program id (e.g. `Excel.Sheet.12`); null for other kinds. */
  progId: string | null
  /** Chart title when the chart has a typed one; null otherwise. */
  title: string | null
  /** OLE object linked to an outside file instead of embedded. */
  linked: boolean
}

export interface SlideContent {
  /** 1-based position in presentation order, hidden slides counted (PowerPoint's numbering). */
  index: number
  partName: string
  hidden: boolean
  /** Text of the title/ctrTitle placeholder; null when there is none or it is empty. */
  title: string | null
  /** Title, else the first line of text, else `Slide N`. */
  navigationTitle: string
  /** Text, tables and SmartArt in reading order (shape-tree order, groups flattened). */
  blocks: SlideBlock[]
  /** Speaker notes (notes body placeholder), paragraphs joined by `\n`; null when none. */
  notes: string | null
  images: SlideImage[]
  media: SlideMedia[]
  links: SlideLink[]
  objects: SlideObject[]
  animations: boolean
  transition: boolean
}

export interface PresentationContent {
  format: PresentationFormat
  /** docProps/core.xml dc:title, else the first visible slide's title, else null. */
  title: string | null
  titleSource: 'core' | 'slide' | null
  properties: CoreProperties | null
  slideSize: SlideSize | null
  slideCount: number
  visibleSlideCount: number
  hiddenSlideCount: number
  slides: SlideContent[]
  warnings: ConversionWarning[]
}
