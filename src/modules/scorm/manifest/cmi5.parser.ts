import { AppError } from '../../../shared/app-error.ts'
import { courseStructureProblems } from '../../cmi5/course-structure.rules.ts'
import { FileIndex, moreProblems } from './file-index.ts'
import { buildLaunchHref, resolveHref } from './launch-href.ts'
import type { Cmi5Au, Cmi5Block, Cmi5Structure, LaunchTarget } from './manifest.types.ts'
import {
  attr,
  childNamed,
  childrenNamed,
  cleanText,
  parseXmlDocument,
  type XmlElement,
} from './xml.reader.ts'

export const CMI5_FILE = 'cmi5.xml'

export interface Cmi5PackageInfo {
  identifier: string
  title: string
  description: string | null
  launches: LaunchTarget[]
  cmi5: Cmi5Structure
  warnings: string[]
}

const MOVE_ON = new Set([
  'Passed',
  'Completed',
  'CompletedAndPassed',
  'CompletedOrPassed',
  'NotApplicable',
])

/** First non-empty `<langstring>` of a cmi5 title/description, or the element's own text. */
export function langText(el: XmlElement | undefined): string | null {
  if (!el) return null
  const strings = childrenNamed(el, 'langstring')
  const text = cleanText(strings.find((s) => cleanText(s.text))?.text ?? el.text)
  return text || null
}

function invalid(message: string): AppError {
  return new AppError('invalid_package', `${CMI5_FILE}: ${message}`)
}

/**
 * Reads a cmi5 course structure (cmi5.xml at the zip root): course title, blocks and AUs with
 * their launch URL, launchMethod, moveOn and masteryScore. Relative AU URLs must exist in the zip.
 * Long on purpose: it walks the course structure once, in document order, so each refusal names
 * the element where the walk stood.
 */
export function parseCmi5(text: string, fileList: Iterable<string> | null): Cmi5PackageInfo {
  const root = parseXmlDocument(text, CMI5_FILE).root
  if (root.name !== 'courseStructure') {
    throw invalid(
      `the top element is <${root.name}>, but a cmi5 course structure starts with <courseStructure>.`,
    )
  }
  const course = childNamed(root, 'course')
  if (!course) throw invalid('the file has no <course> element.')
  const files = new FileIndex(fileList)
  const warnings: string[] = []
  const problems: string[] = []
  const aus: Cmi5Au[] = []
  const blocks: Cmi5Block[] = []
  const launches: LaunchTarget[] = []

  const readAu = (el: XmlElement, blockId: string | null): string => {
    const id = attr(el, 'id') ?? ''
    const title = langText(childNamed(el, 'title')) ?? id
    const url = cleanText(childNamed(el, 'url')?.text)
    if (!id) problems.push(`An AU ("${title}") has no id.`)
    if (!url) problems.push(`The AU '${id}' has no <url>.`)
    const moveOn = attr(el, 'moveOn') ?? 'NotApplicable'
    const mastery = attr(el, 'masteryScore')
    const masteryScore = mastery === undefined ? null : Number(mastery)
    if (masteryScore !== null && !(masteryScore >= 0 && masteryScore <= 1)) {
      problems.push(`The AU '${id}' has masteryScore "${mastery}"; it must be between 0 and 1.`)
    }
    const au: Cmi5Au = {
      id,
      title,
      description: langText(childNamed(el, 'description')),
      url,
      launchMethod: attr(el, 'launchMethod') === 'OwnWindow' ? 'OwnWindow' : 'AnyWindow',
      moveOn: (MOVE_ON.has(moveOn) ? moveOn : 'NotApplicable') as Cmi5Au['moveOn'],
      masteryScore,
      activityType: attr(el, 'activityType') ?? null,
      launchParameters: cleanText(childNamed(el, 'launchParameters')?.text) || null,
      entitlementKey: cleanText(childNamed(el, 'entitlementKey')?.text) || null,
      blockId,
    }
    if (!MOVE_ON.has(moveOn))
      warnings.push(`The AU '${id}' has an unknown moveOn "${moveOn}"; NotApplicable is used.`)
    aus.push(au)
    if (url) {
      const resolved = resolveHref('', url)
      if (resolved.kind === 'invalid') {
        problems.push(`The URL '${url}' of the AU '${id}' cannot be used: ${resolved.reason}.`)
      } else if (resolved.kind === 'file' && !files.has(resolved.path)) {
        problems.push(`The launch file '${resolved.path}' of the AU '${id}' is not in the zip.`)
      } else {
        launches.push({
          id,
          title,
          kind: 'au',
          organizationId: null,
          resourceId: null,
          href: buildLaunchHref(resolved, null),
          path: resolved.kind === 'file' ? resolved.path : null,
        })
      }
    }
    return id
  }

  const readChildren = (el: XmlElement, blockId: string | null): string[] => {
    const ids: string[] = []
    for (const child of el.children) {
      if (child.name === 'au') ids.push(readAu(child, blockId))
      else if (child.name === 'block') {
        const id = attr(child, 'id') ?? ''
        const block: Cmi5Block = {
          id,
          title: langText(childNamed(child, 'title')) ?? id,
          children: [],
        }
        blocks.push(block)
        block.children = readChildren(child, id)
        ids.push(id)
      }
    }
    return ids
  }
  readChildren(root, null)
  // The cmi5 rules of ids, URLs and element order (modules/cmi5, where the cmi5 LMS lives).
  problems.push(...courseStructureProblems(root))

  if (problems.length === 0 && aus.length === 0)
    problems.push('the course has no AU (assignable unit) to launch.')
  if (problems.length > 0) {
    const more = moreProblems(problems.length - 1)
    throw new AppError('invalid_package', `${CMI5_FILE}: ${problems[0]}${more}`, { problems })
  }
  const identifier = attr(course, 'id') ?? ''
  return {
    identifier,
    title: langText(childNamed(course, 'title')) ?? aus[0]?.title ?? identifier,
    description: langText(childNamed(course, 'description')),
    launches,
    cmi5: { courseId: identifier, blocks, aus },
    warnings,
  }
}
