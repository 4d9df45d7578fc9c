import { isAppError } from '../../../shared/app-error.ts'
import { rejection } from './ooxml.errors.ts'
import { OoxmlPackage } from './ooxml.package.ts'
import { firstRelOfType } from './opc.parts.ts'
import type { PresentationFormat } from './presentation.types.ts'
import type { ZipLimits } from './zip-archive.reader.ts'

const FORMATS: ReadonlyMap<string, PresentationFormat> = new Map([
  ['application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml', 'pptx'],
  ['application/vnd.ms-powerpoint.presentation.macroenabled.main+xml', 'pptm'],
  ['application/vnd.openxmlformats-officedocument.presentationml.template.main+xml', 'potx'],
  ['application/vnd.ms-powerpoint.template.macroenabled.main+xml', 'potm'],
  ['application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml', 'ppsx'],
  ['application/vnd.ms-powerpoint.slideshow.macroenabled.main+xml', 'ppsm'],
])

export interface MainPart {
  /** Stored name of the presentation part, e.g. `ppt/presentation.xml`. */
  partName: string
  format: PresentationFormat
}

export interface OpenedPresentation {
  pkg: OoxmlPackage
  main: MainPart
}

/**
 * Opens a file as a PowerPoint package or refuses it with the reason a user can act on.
 * The caller owns `pkg` and must close it.
 */
export async function openPresentationPackage(
  path: string,
  limits: ZipLimits,
): Promise<OpenedPresentation> {
  const pkg = await OoxmlPackage.open(path, limits, recogniseLookalike)
  try {
    return { pkg, main: await findMainPart(pkg) }
  } catch (err) {
    pkg.close()
    throw err
  }
}

/** Keynote and OpenDocument files are ZIPs too; name them instead of calling them damaged. */
export function recogniseLookalike(names: string[]): Error | null {
  const iwork = names.some((n) =>
    /(^|\/)(index\/[^/]+\.iwa|index\.zip|index\.apxl(\.gz)?)$/i.test(n),
  )
  if (iwork) return rejection('keynote')
  const lower = new Set(names.map((n) => n.toLowerCase()))
  if (lower.has('mimetype') && lower.has('content.xml') && lower.has('meta-inf/manifest.xml')) {
    return rejection('opendocument')
  }
  return null
}

async function findMainPart(pkg: OoxmlPackage): Promise<MainPart> {
  let partName: string | undefined
  try {
    const rel = firstRelOfType(await pkg.rels(''), 'officeDocument')
    if (rel?.partName) partName = pkg.resolve(rel.partName) ?? rel.partName
  } catch (err) {
    // A damaged _rels/.rels is survivable: the content types still name the main part.
    if (!isAppError(err)) throw err
  }
  if (!partName) {
    const candidates = pkg.contentTypes.overridesWhere((t) => FORMATS.has(t.toLowerCase()))
    const found = candidates.map((p) => pkg.resolve(p)).find((p) => p !== undefined)
    if (!found) {
      throw rejection(
        'not_presentation',
        'This file is an Office-style ZIP archive but has no PowerPoint presentation part.',
      )
    }
    partName = found
  }
  const contentType = (pkg.contentTypeOf(partName) ?? '').toLowerCase()
  const format = FORMATS.get(contentType)
  if (!format) throw wrongKind(contentType)
  const stored = pkg.resolve(partName)
  if (!stored) {
    throw rejection(
      'corrupt',
      'The presentation is damaged: its main part (ppt/presentation.xml) is missing. Open it in PowerPoint, save it again and re-upload.',
    )
  }
  return { partName: stored, format }
}

function wrongKind(contentType: string): Error {
  if (
    contentType.includes('wordprocessingml') ||
    contentType.startsWith('application/vnd.ms-word')
  ) {
    return rejection('not_presentation', 'This is a Word document, not a PowerPoint presentation.')
  }
  if (contentType.includes('spreadsheetml') || contentType.startsWith('application/vnd.ms-excel')) {
    return rejection(
      'not_presentation',
      'This is an Excel workbook, not a PowerPoint presentation.',
    )
  }
  if (contentType.includes('addin')) {
    return rejection('not_presentation', 'This is a PowerPoint add-in, not a presentation.')
  }
  return rejection(
    'not_presentation',
    'This file is an Office-style ZIP archive but not a PowerPoint presentation.',
  )
}
