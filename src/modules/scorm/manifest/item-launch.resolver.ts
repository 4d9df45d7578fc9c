/**
 * Where each leaf item of a manifest launches (checked against the zip's files), and the step that
 * puts those launches on a new copy of the organizations. Nothing here writes into the parsed tree.
 */
import type { FileIndex } from './file-index.ts'
import { buildLaunchHref, type ResolvedHref } from './launch-href.ts'
import type { ManifestItem, ManifestOrganization, ManifestResource } from './manifest.types.ts'

/** What resolving needs, and where it records what it found. */
export interface ResolveContext {
  resources: Map<string, ManifestResource>
  hrefs: Map<string, ResolvedHref>
  files: FileIndex
  problems: string[]
  warnings: string[]
  defaultedTypes: Set<string>
}

export function describeItem(item: ManifestItem): string {
  return item.title && item.title !== item.identifier
    ? `'${item.identifier}' ("${item.title}")`
    : `'${item.identifier}'`
}

/** Where a leaf item launches: the derived fields `resolveLaunches` puts on the item. */
export interface ItemLaunch {
  launchHref: string
  launchPath: string | null
  scormType: 'sco' | 'asset'
}

/**
 * Works out where one leaf item launches, recording a problem (or a warning) when it cannot.
 * Reads the item; never writes into it.
 */
export function resolveItem(item: ManifestItem, ctx: ResolveContext): ItemLaunch | null {
  const ref = item.identifierref
  if (!ref) {
    ctx.warnings.push(
      `The item ${describeItem(item)} has no content (no identifierref); it cannot be launched.`,
    )
    return null
  }
  const resource = ctx.resources.get(ref)
  if (!resource) {
    ctx.problems.push(
      `The item ${describeItem(item)} refers to the resource '${ref}', which is not in the manifest.`,
    )
    return null
  }
  const resolved = ctx.hrefs.get(ref)
  if (!resolved) {
    ctx.problems.push(
      `The item ${describeItem(item)} refers to the resource '${ref}', which has no href (launch file).`,
    )
    return null
  }
  if (resolved.kind === 'invalid') {
    ctx.problems.push(
      `The launch file '${resource.href}' of the resource '${ref}' cannot be used: ${resolved.reason}.`,
    )
    return null
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
      return null
    }
  } else {
    ctx.warnings.push(
      `The item ${describeItem(item)} launches external content at ${resolved.url}; it is not stored with the package.`,
    )
  }
  if (!resource.scormType && !ctx.defaultedTypes.has(ref)) {
    ctx.defaultedTypes.add(ref)
    ctx.warnings.push(
      `The resource '${ref}' does not say whether it is a SCO or an asset (adlcp:scormType); it was treated as a SCO.`,
    )
  }
  return {
    launchHref: buildLaunchHref(resolved, item.parameters, path),
    launchPath: path ?? null,
    scormType: resource.scormType ?? 'sco',
  }
}

/**
 * New organizations whose leaf items carry their launch (`launchHref`, `launchPath`,
 * `scormType`), which the stored structure, the activity tree and the course items rely on.
 * The given organizations are not changed.
 */
export function resolveLaunches(
  organizations: readonly ManifestOrganization[],
  launches: ReadonlyMap<ManifestItem, ItemLaunch>,
): ManifestOrganization[] {
  const withLaunch = (item: ManifestItem): ManifestItem => ({
    ...item,
    ...launches.get(item),
    children: item.children.map(withLaunch),
  })
  return organizations.map((org) => ({ ...org, items: org.items.map(withLaunch) }))
}
