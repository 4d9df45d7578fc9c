import { AppError } from '../../../shared/app-error.ts'
import { FileIndex, moreProblems } from './file-index.ts'
import { buildLaunchHref, type ResolvedHref } from './launch-href.ts'
import type {
  LaunchTarget,
  ManifestItem,
  ManifestOrganization,
  ManifestResource,
  ScormEdition,
  ScormStructure,
  ScormVersion,
} from './manifest.types.ts'
import { MANIFEST_FILE, type ParsedScormManifest } from './scorm-manifest.parser.ts'

export interface ScormPackageInfo {
  scormVersion: ScormVersion
  edition: ScormEdition | null
  identifier: string | null
  title: string
  description: string | null
  launches: LaunchTarget[]
  scorm: ScormStructure
  warnings: string[]
}

interface Context {
  resources: Map<string, ManifestResource>
  hrefs: Map<string, ResolvedHref>
  files: FileIndex
  problems: string[]
  warnings: string[]
  defaultedTypes: Set<string>
}

function describeItem(item: ManifestItem): string {
  return item.title && item.title !== item.identifier
    ? `'${item.identifier}' ("${item.title}")`
    : `'${item.identifier}'`
}

/** Fills launchHref/launchPath/scormType of one leaf item, or records why it cannot launch. */
function resolveItem(item: ManifestItem, ctx: Context): void {
  const ref = item.identifierref
  if (!ref) {
    ctx.warnings.push(
      `The item ${describeItem(item)} has no content (no identifierref); it cannot be launched.`,
    )
    return
  }
  const resource = ctx.resources.get(ref)
  if (!resource) {
    ctx.problems.push(
      `The item ${describeItem(item)} refers to the resource '${ref}', which is not in the manifest.`,
    )
    return
  }
  const resolved = ctx.hrefs.get(ref)
  if (!resolved) {
    ctx.problems.push(
      `The item ${describeItem(item)} refers to the resource '${ref}', which has no href (launch file).`,
    )
    return
  }
  if (resolved.kind === 'invalid') {
    ctx.problems.push(
      `The launch file '${resource.href}' of the resource '${ref}' cannot be used: ${resolved.reason}.`,
    )
    return
  }
  let path: string | undefined
  if (resolved.kind === 'file') {
    path = [resolved.path, resolved.rawPath].find((p) => ctx.files.has(p))
    if (path === undefined) {
      const variant = ctx.files.caseVariant(resolved.path)
      const hint = variant ? ` The zip has '${variant}'; file names are case-sensitive.` : ''
      ctx.problems.push(
        `The launch file '${resolved.path}' of the item ${describeItem(item)} is not in the zip.${hint}`,
      )
      return
    }
  } else {
    ctx.warnings.push(
      `The item ${describeItem(item)} launches external content at ${resolved.url}; it is not stored with the package.`,
    )
  }
  item.launchHref = buildLaunchHref(resolved, item.parameters, path)
  item.launchPath = path ?? null
  item.scormType = resource.scormType ?? 'sco'
  if (!resource.scormType && !ctx.defaultedTypes.has(ref)) {
    ctx.defaultedTypes.add(ref)
    ctx.warnings.push(
      `The resource '${ref}' does not say whether it is a SCO or an asset (adlcp:scormType); it was treated as a SCO.`,
    )
  }
}

function walkItems(items: ManifestItem[], visit: (item: ManifestItem) => void): void {
  for (const item of items) {
    visit(item)
    walkItems(item.children, visit)
  }
}

/**
 * An empty `<organizations/>` is valid IMS Content Packaging (a package of resources only), and
 * LMSs such as Moodle and SCORM Cloud still launch such a zip. Rather than refusing it, one
 * organization is built with an item per SCO resource, in manifest order, and a warning says
 * so. A manifest without SCO resources is still refused (there would be nothing to track).
 */
function generatedOrganization(parsed: ParsedScormManifest, title: string): ManifestOrganization {
  const scos = parsed.resources.filter((r) => r.scormType === 'sco' && r.href)
  const taken = new Set(parsed.resources.map((r) => r.identifier))
  let identifier = 'default_organization'
  while (taken.has(identifier)) identifier = `_${identifier}`
  return {
    identifier,
    title,
    sequencing: null,
    objectivesGlobalToSystem: true,
    sharedDataGlobalToSystem: true,
    items: scos.map((resource, i) => ({
      identifier: `${identifier}_item_${i + 1}`,
      title: scos.length === 1 ? title : `${title} (${i + 1})`,
      identifierref: resource.identifier,
      isvisible: true,
      parameters: null,
      launchHref: null,
      launchPath: null,
      scormType: null,
      masteryScore: null,
      scaledPassingScore: null,
      prerequisites: null,
      maxTimeAllowed: null,
      timeLimitAction: null,
      dataFromLms: null,
      completionThreshold: null,
      sequencing: null,
      hideLmsUi: [],
      sharedData: [],
      children: [],
    })),
  }
}

function refuse(problems: string[]): never {
  const [first, ...rest] = problems
  const more = moreProblems(rest.length)
  throw new AppError('invalid_package', `${MANIFEST_FILE}: ${first}${more}`, { problems })
}

/**
 * Checks a parsed manifest against the zip's files and works out what can be launched.
 * Every problem is collected, so an author sees them all at once; warnings do not refuse.
 */
export function validateScormManifest(
  parsed: ParsedScormManifest,
  fileList: Iterable<string> | null,
  options: { fallbackTitle?: string } = {},
): ScormPackageInfo {
  const files = new FileIndex(fileList)
  const warnings = [...parsed.warnings]
  const problems: string[] = []
  const resources = new Map<string, ManifestResource>()
  for (const r of parsed.resources) {
    if (resources.has(r.identifier))
      warnings.push(
        `The resource identifier '${r.identifier}' is used twice; the first one is used.`,
      )
    else resources.set(r.identifier, r)
  }
  const ctx: Context = {
    resources,
    hrefs: parsed.resourceHrefs,
    files,
    problems,
    warnings,
    defaultedTypes: new Set(),
  }

  let organizations = parsed.organizations
  let organizationGenerated = false
  if (!parsed.hasOrganizationsElement) {
    refuse([
      'the manifest has no <organizations> element, so the course has no structure to launch.',
    ])
  }
  const fallbackTitle =
    parsed.metadataTitle ||
    parsed.organizations[0]?.title ||
    options.fallbackTitle ||
    parsed.identifier ||
    'Untitled course'
  if (organizations.length === 0) {
    const generated = generatedOrganization(parsed, fallbackTitle)
    if (generated.items.length === 0) {
      refuse([
        'the manifest has no organization and no SCO resource, so there is nothing to launch.',
      ])
    }
    organizations = [generated]
    organizationGenerated = true
    warnings.push(
      `The manifest has no organization (course structure); one was built from its ${generated.items.length} SCO resource${generated.items.length > 1 ? 's' : ''}.`,
    )
  }
  let defaultOrg = organizations.find((o) => o.identifier === parsed.defaultOrganization)
  if (!defaultOrg) {
    if (parsed.defaultOrganization && !organizationGenerated) {
      warnings.push(
        `The default organization '${parsed.defaultOrganization}' does not exist; the first organization is used.`,
      )
    }
    defaultOrg = organizations[0] as ManifestOrganization
  }

  const collectionIds = new Set(parsed.sequencingCollection.map((s) => s.id))
  for (const org of organizations) {
    walkItems(org.items, (item) => {
      if (item.children.length === 0) resolveItem(item, ctx)
      else if (item.identifierref) {
        warnings.push(
          `The item ${describeItem(item)} has sub-items and an identifierref; the identifierref is ignored.`,
        )
      }
      const idRef = item.sequencing?.idRef
      if (idRef && !collectionIds.has(idRef)) {
        warnings.push(
          `The item ${describeItem(item)} refers to sequencing '${idRef}', which is not in the sequencingCollection.`,
        )
      }
    })
  }

  const launches: LaunchTarget[] = []
  walkItems(defaultOrg.items, (item) => {
    if (item.children.length > 0 || item.launchHref === null || item.scormType === null) return
    launches.push({
      id: item.identifier,
      title: item.title,
      kind: item.scormType,
      organizationId: defaultOrg.identifier,
      resourceId: item.identifierref,
      href: item.launchHref,
      path: item.launchPath,
    })
  })
  if (problems.length === 0 && launches.length === 0) {
    problems.push(
      `the organization '${defaultOrg.identifier}' has no item that launches a SCO or an asset, so there is nothing to launch.`,
    )
  }
  if (problems.length > 0) refuse(problems)

  checkListedFiles(parsed.resources, resources, files, warnings)
  return {
    scormVersion: parsed.version,
    edition: parsed.edition,
    identifier: parsed.identifier,
    title: defaultOrg.title || fallbackTitle,
    description: parsed.description,
    launches,
    scorm: {
      defaultOrganization: defaultOrg.identifier,
      organizations,
      resources: parsed.resources,
      sequencingCollection: parsed.sequencingCollection,
      organizationGenerated,
    },
    warnings,
  }
}

/** Missing `<file>` entries and dangling dependencies only warn: many real packages have them. */
function checkListedFiles(
  list: ManifestResource[],
  byId: Map<string, ManifestResource>,
  files: FileIndex,
  warnings: string[],
): void {
  const missing = new Set<string>()
  for (const resource of list) {
    if (files.checking) for (const f of resource.files) if (!files.has(f)) missing.add(f)
    for (const dep of resource.dependencies) {
      if (!byId.has(dep)) {
        warnings.push(
          `The resource '${resource.identifier}' depends on '${dep}', which is not in the manifest.`,
        )
      }
    }
  }
  if (missing.size > 0) {
    const shown = [...missing]
      .slice(0, 5)
      .map((f) => `'${f}'`)
      .join(', ')
    const more = missing.size > 5 ? ` and ${missing.size - 5} more` : ''
    warnings.push(`The manifest lists files that are not in the zip: ${shown}${more}.`)
  }
}
