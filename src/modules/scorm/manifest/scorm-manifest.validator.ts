import { AppError } from '../../../shared/app-error.ts'
import { FileIndex, moreProblems } from './file-index.ts'
import {
  describeItem,
  type ItemLaunch,
  type ResolveContext,
  resolveItem,
  resolveLaunches,
} from './item-launch.resolver.ts'
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

/** What checking a manifest found. */
export interface ScormManifestCheck {
  /** Why the package must be refused; empty when it can be imported. */
  problems: string[]
  warnings: string[]
  /** The manifest's organizations, or the one built when it has none (items without launches). */
  organizations: ManifestOrganization[]
  organizationGenerated: boolean
  /** null only when the check stopped early (see problems). */
  defaultOrganization: ManifestOrganization | null
  title: string
  /** Leaf item → where it launches; items that cannot launch are absent. */
  itemLaunches: Map<ManifestItem, ItemLaunch>
  /** The launchable leaves of the default organization, in order. */
  launches: LaunchTarget[]
}

/**
 * Checks a parsed manifest against the zip's files and works out what can be launched.
 * Every problem is collected, so an author sees them all at once; warnings do not refuse.
 * Pure: it reads `parsed` and writes nothing into it (`resolveLaunches` builds the launch fields).
 */
export function checkScormManifest(
  parsed: ParsedScormManifest,
  fileList: Iterable<string> | null,
  options: { fallbackTitle?: string } = {},
): ScormManifestCheck {
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
  const fallbackTitle =
    parsed.metadataTitle ||
    parsed.organizations[0]?.title ||
    options.fallbackTitle ||
    parsed.identifier ||
    'Untitled course'
  const check: ScormManifestCheck = {
    problems,
    warnings,
    organizations: parsed.organizations,
    organizationGenerated: false,
    defaultOrganization: null,
    title: fallbackTitle,
    itemLaunches: new Map(),
    launches: [],
  }
  chooseOrganizations(parsed, check)
  if (problems.length > 0) return check
  const defaultOrg = pickDefaultOrganization(parsed, check)
  check.defaultOrganization = defaultOrg
  check.title = defaultOrg.title || fallbackTitle
  const ctx: ResolveContext = {
    resources,
    hrefs: parsed.resourceHrefs,
    files,
    problems,
    warnings,
    defaultedTypes: new Set(),
  }
  checkItems(parsed, check.organizations, ctx, check.itemLaunches)
  check.launches = launchTargets(defaultOrg, check.itemLaunches)
  if (problems.length === 0 && check.launches.length === 0) {
    problems.push(
      `the organization '${defaultOrg.identifier}' has no item that launches a SCO or an asset, so there is nothing to launch.`,
    )
  }
  if (problems.length === 0) checkListedFiles(parsed.resources, resources, files, warnings)
  return check
}

/** The organizations to check: the manifest's, or one built from its SCO resources. */
function chooseOrganizations(parsed: ParsedScormManifest, check: ScormManifestCheck): void {
  if (!parsed.hasOrganizationsElement) {
    check.problems.push(
      'the manifest has no <organizations> element, so the course has no structure to launch.',
    )
    return
  }
  if (check.organizations.length > 0) return
  const generated = generatedOrganization(parsed, check.title)
  const count = generated.items.length
  if (count === 0) {
    check.problems.push(
      'the manifest has no organization and no SCO resource, so there is nothing to launch.',
    )
    return
  }
  check.organizations = [generated]
  check.organizationGenerated = true
  check.warnings.push(
    `The manifest has no organization (course structure); one was built from its ${count} SCO resource${count > 1 ? 's' : ''}.`,
  )
}

/** The launchable leaves of `org`, in order. */
function launchTargets(
  org: ManifestOrganization,
  itemLaunches: ReadonlyMap<ManifestItem, ItemLaunch>,
): LaunchTarget[] {
  const launches: LaunchTarget[] = []
  walkItems(org.items, (item) => {
    const launch = itemLaunches.get(item)
    if (item.children.length > 0 || !launch) return
    launches.push({
      id: item.identifier,
      title: item.title,
      kind: launch.scormType,
      organizationId: org.identifier,
      resourceId: item.identifierref,
      href: launch.launchHref,
      path: launch.launchPath,
    })
  })
  return launches
}

function pickDefaultOrganization(
  parsed: ParsedScormManifest,
  check: ScormManifestCheck,
): ManifestOrganization {
  const found = check.organizations.find((o) => o.identifier === parsed.defaultOrganization)
  if (found) return found
  if (parsed.defaultOrganization && !check.organizationGenerated) {
    check.warnings.push(
      `The default organization '${parsed.defaultOrganization}' does not exist; the first organization is used.`,
    )
  }
  return check.organizations[0] as ManifestOrganization
}

/** Resolves every leaf's launch into `out` and warns about ignored or dangling references. */
function checkItems(
  parsed: ParsedScormManifest,
  organizations: ManifestOrganization[],
  ctx: ResolveContext,
  out: Map<ManifestItem, ItemLaunch>,
): void {
  const collectionIds = new Set(parsed.sequencingCollection.map((s) => s.id))
  for (const org of organizations) {
    walkItems(org.items, (item) => {
      if (item.children.length === 0) {
        const launch = resolveItem(item, ctx)
        if (launch) out.set(item, launch)
      } else if (item.identifierref) {
        ctx.warnings.push(
          `The item ${describeItem(item)} has sub-items and an identifierref; the identifierref is ignored.`,
        )
      }
      const idRef = item.sequencing?.idRef
      if (idRef && !collectionIds.has(idRef)) {
        ctx.warnings.push(
          `The item ${describeItem(item)} refers to sequencing '${idRef}', which is not in the sequencingCollection.`,
        )
      }
    })
  }
}

/**
 * Checks a parsed manifest (`checkScormManifest`), refuses it with every problem found, and
 * returns the package summary with launches resolved into a new tree (`resolveLaunches`).
 * `parsed` is left unchanged.
 */
export function validateScormManifest(
  parsed: ParsedScormManifest,
  fileList: Iterable<string> | null,
  options: { fallbackTitle?: string } = {},
): ScormPackageInfo {
  const check = checkScormManifest(parsed, fileList, options)
  if (check.problems.length > 0 || !check.defaultOrganization) refuse(check.problems)
  const defaultIndex = check.organizations.indexOf(check.defaultOrganization)
  const organizations = resolveLaunches(check.organizations, check.itemLaunches)
  return {
    scormVersion: parsed.version,
    edition: parsed.edition,
    identifier: parsed.identifier,
    title: check.title,
    description: parsed.description,
    launches: check.launches,
    scorm: {
      defaultOrganization: (organizations[defaultIndex] as ManifestOrganization).identifier,
      organizations,
      resources: parsed.resources,
      sequencingCollection: parsed.sequencingCollection,
      organizationGenerated: check.organizationGenerated,
    },
    warnings: check.warnings,
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
