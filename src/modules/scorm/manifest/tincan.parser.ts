import { AppError } from '../../../shared/app-error.ts'
import { FileIndex, moreProblems } from './file-index.ts'
import { buildLaunchHref, resolveHref } from './launch-href.ts'
import type { LaunchTarget, TinCanActivity, TinCanStructure } from './manifest.types.ts'
import {
  attr,
  childNamed,
  childrenNamed,
  cleanText,
  parseXmlDocument,
  type XmlElement,
} from './xml.reader.ts'

export const TINCAN_FILE = 'tincan.xml'

export interface TinCanPackageInfo {
  identifier: string
  title: string
  description: string | null
  launches: LaunchTarget[]
  xapi: TinCanStructure
  warnings: string[]
}

/** First non-empty of several language variants (`<name lang="en-US">`). */
function firstText(elements: XmlElement[]): string | null {
  const text = cleanText(elements.find((e) => cleanText(e.text))?.text)
  return text || null
}

function invalid(message: string): AppError {
  return new AppError('invalid_package', `${TINCAN_FILE}: ${message}`)
}

/**
 * Reads a Tin Can (xAPI) package descriptor: the activities, and the one(s) with a `<launch>`
 * file, which must exist in the zip unless it is an absolute http(s) URL.
 */
export function parseTinCan(text: string, fileList: Iterable<string> | null): TinCanPackageInfo {
  const root = parseXmlDocument(text, TINCAN_FILE).root
  if (root.name !== 'tincan') {
    throw invalid(
      `the top element is <${root.name}>, but a Tin Can package descriptor starts with <tincan>.`,
    )
  }
  const files = new FileIndex(fileList)
  const activitiesEl = childNamed(root, 'activities')
  const activities: TinCanActivity[] = (
    activitiesEl ? childrenNamed(activitiesEl, 'activity') : []
  ).map((el) => ({
    id: attr(el, 'id') ?? '',
    type: attr(el, 'type') ?? null,
    name: firstText(childrenNamed(el, 'name')) ?? attr(el, 'id') ?? '',
    description: firstText(childrenNamed(el, 'description')),
    launch: firstText(childrenNamed(el, 'launch')),
  }))
  const launches: LaunchTarget[] = []
  const problems: string[] = []
  for (const activity of activities) {
    if (!activity.launch) continue
    const resolved = resolveHref('', activity.launch)
    if (resolved.kind === 'invalid') {
      problems.push(
        `The launch file '${activity.launch}' of the activity '${activity.id}' cannot be used: ${resolved.reason}.`,
      )
    } else if (resolved.kind === 'file' && !files.has(resolved.path)) {
      problems.push(
        `The launch file '${resolved.path}' of the activity '${activity.id}' is not in the zip.`,
      )
    } else {
      launches.push({
        id: activity.id,
        title: activity.name,
        kind: 'activity',
        organizationId: null,
        resourceId: null,
        href: buildLaunchHref(resolved, null),
        path: resolved.kind === 'file' ? resolved.path : null,
      })
    }
  }
  if (problems.length === 0 && launches.length === 0) {
    problems.push('no activity has a <launch> file, so there is nothing to launch.')
  }
  if (problems.length > 0) {
    const more = moreProblems(problems.length - 1)
    throw new AppError('invalid_package', `${TINCAN_FILE}: ${problems[0]}${more}`, { problems })
  }
  const main = activities.find((a) => a.id === launches[0]?.id) ?? activities[0]
  return {
    identifier: main?.id ?? '',
    title: main?.name ?? 'Untitled course',
    description: main?.description ?? null,
    launches,
    xapi: { activities },
    warnings: [],
  }
}
