import { AppError } from '../../../shared/app-error.ts'
import { CMI5_FILE, parseCmi5 } from './cmi5.parser.ts'
import type { ContentType, ManifestSummary } from './manifest.types.ts'
import { MANIFEST_FILE, parseScormManifest } from './scorm-manifest.parser.ts'
import { validateScormManifest } from './scorm-manifest.validator.ts'
import { parseTinCan, TINCAN_FILE } from './tincan.parser.ts'

export interface PackageLayout {
  contentType: ContentType
  /** Path of the descriptor inside the zip (its case as stored). */
  manifestPath: string
  warnings: string[]
}

const AICC_EXTENSIONS = /\.(crs|au|des|cst|ort|pre|cmp)$/i

function refuse(message: string, details?: unknown): never {
  throw new AppError('invalid_package', message, details)
}

function atRoot(files: readonly string[], name: string): string | undefined {
  return files.find((f) => f.toLowerCase() === name)
}

function nested(files: readonly string[], name: string): string | undefined {
  return files.find((f) => f.toLowerCase().endsWith(`/${name}`))
}

/**
 * Decides from the file list what kind of package the zip is and where its descriptor is.
 * A root imsmanifest.xml wins over cmi5.xml and tincan.xml (this is a SCORM service first; some
 * tools ship both). Refuses zips whose manifest is in a sub-folder, AICC courses, and zips
 * without any descriptor, each with a message that tells the author what to do.
 */
export function detectPackageLayout(files: readonly string[]): PackageLayout {
  if (files.length === 0) refuse('The zip is empty.')
  const warnings: string[] = []
  const scorm = atRoot(files, MANIFEST_FILE)
  const cmi5 = atRoot(files, CMI5_FILE)
  const tincan = atRoot(files, TINCAN_FILE)
  if (scorm) {
    for (const other of [cmi5, tincan]) {
      if (other)
        warnings.push(`The zip also holds '${other}'; it was ignored and the SCORM manifest used.`)
    }
    return { contentType: 'scorm', manifestPath: scorm, warnings }
  }
  if (cmi5) {
    if (tincan) warnings.push(`The zip also holds '${tincan}'; it was ignored and cmi5.xml used.`)
    return { contentType: 'cmi5', manifestPath: cmi5, warnings }
  }
  if (tincan) return { contentType: 'xapi', manifestPath: tincan, warnings }

  const deep =
    nested(files, MANIFEST_FILE) ?? nested(files, CMI5_FILE) ?? nested(files, TINCAN_FILE)
  if (deep) {
    const folder = deep.slice(0, deep.lastIndexOf('/') + 1)
    const name = deep.slice(folder.length)
    refuse(
      `The zip's ${name} is inside the folder '${folder}', but it must be at the top level of the zip. Open that folder, select its contents and zip them (not the folder itself).`,
      { manifestPath: deep },
    )
  }
  const aicc = files.find((f) => AICC_EXTENSIONS.test(f))
  if (aicc) {
    refuse(
      `This looks like an AICC course (it contains '${aicc}'). AICC packages are not supported; publish the course as SCORM 1.2, SCORM 2004 or cmi5 instead.`,
      { aiccFile: aicc },
    )
  }
  refuse(
    'The zip has no imsmanifest.xml at its top level, so it is not a SCORM package (nor a cmi5 or xAPI package with cmi5.xml or tincan.xml). Publish the course as SCORM from your authoring tool and upload that zip.',
  )
}

export interface SummaryInput {
  layout: PackageLayout
  /** The descriptor's text (decoded). */
  text: string
  /** Every file path of the package; null skips existence checks. */
  files: readonly string[] | null
  totalBytes: number
  /** Title to use when the package names none (e.g. the uploaded file name). */
  fallbackTitle?: string
}

/**
 * Parses and validates the descriptor and assembles the stored summary. Pure: no I/O. Long on
 * purpose: one switch over the package kinds, each assembling its summary in a few lines.
 */
export function summarisePackage(input: SummaryInput): ManifestSummary {
  const { layout, text, files, totalBytes } = input
  const base = {
    contentType: layout.contentType,
    manifestPath: layout.manifestPath,
    files: files ? [...files] : [],
    totalBytes,
  }
  switch (layout.contentType) {
    case 'scorm': {
      const info = validateScormManifest(parseScormManifest(text), files, {
        fallbackTitle: input.fallbackTitle,
      })
      return {
        ...base,
        scormVersion: info.scormVersion,
        edition: info.edition,
        identifier: info.identifier,
        title: info.title,
        description: info.description,
        launches: info.launches,
        scorm: info.scorm,
        cmi5: null,
        xapi: null,
        warnings: [...layout.warnings, ...info.warnings],
      }
    }
    case 'cmi5': {
      const info = parseCmi5(text, files)
      return {
        ...base,
        scormVersion: null,
        edition: null,
        identifier: info.identifier || null,
        title: info.title || input.fallbackTitle || 'Untitled course',
        description: info.description,
        launches: info.launches,
        scorm: null,
        cmi5: info.cmi5,
        xapi: null,
        warnings: [...layout.warnings, ...info.warnings],
      }
    }
    case 'xapi': {
      const info = parseTinCan(text, files)
      return {
        ...base,
        scormVersion: null,
        edition: null,
        identifier: info.identifier || null,
        title: info.title || input.fallbackTitle || 'Untitled course',
        description: info.description,
        launches: info.launches,
        scorm: null,
        cmi5: null,
        xapi: info.xapi,
        warnings: [...layout.warnings, ...info.warnings],
      }
    }
  }
}
