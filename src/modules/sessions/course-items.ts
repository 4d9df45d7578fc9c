import type { StoredManifest } from '../packages/package-ingest.ts'
import type { ManifestItem, ManifestOrganization } from '../scorm/manifest/index.ts'

/** One entry of the player's table of contents. */
export interface CourseItem {
  id: string
  title: string
  /** Depth in the organization (0 = top level). */
  level: number
  kind: 'sco' | 'asset' | 'au' | 'activity' | 'heading'
  /** Launch URL relative to the package root; null for headings. */
  href: string | null
  launchable: boolean
  /** The manifest's isvisible: false keeps the item out of the table of contents. */
  visible: boolean
  /** SCORM 1.2 adlcp:prerequisites (aicc_script), evaluated by the player; null when none. */
  prerequisites: string | null
  /** The manifest item, for building launch data (SCORM only). */
  manifestItem: ManifestItem | null
}

/** The organization a SCORM package plays: its default, else its first. */
export function playedOrganization(manifest: StoredManifest): ManifestOrganization | undefined {
  const scorm = manifest.scorm
  if (!scorm) return undefined
  return (
    scorm.organizations.find((o) => o.identifier === scorm.defaultOrganization) ??
    scorm.organizations[0]
  )
}

/**
 * The default organization flattened in order (SCORM), or the launch targets (cmi5, Tin Can).
 * Invisible items are kept out of the table of contents but stay launchable by flow.
 */
export function courseItems(manifest: StoredManifest): CourseItem[] {
  const scorm = manifest.scorm
  if (!scorm) {
    return manifest.launches.map((l) => ({
      id: l.id,
      title: l.title,
      level: 0,
      kind: l.kind,
      href: l.href,
      launchable: true,
      visible: true,
      prerequisites: null,
      manifestItem: null,
    }))
  }
  const organization = playedOrganization(manifest)
  const out: CourseItem[] = []
  const walk = (items: ManifestItem[], level: number) => {
    for (const item of items) {
      const launchable = item.launchHref !== null
      out.push({
        id: item.identifier,
        title: item.title,
        level,
        kind: launchable ? (item.scormType ?? 'sco') : 'heading',
        href: item.launchHref,
        launchable,
        visible: item.isvisible,
        prerequisites: item.prerequisites,
        manifestItem: item,
      })
      walk(item.children, level + 1)
    }
  }
  walk(organization?.items ?? [], 0)
  return out
}

/** The items that carry runtime data (SCOs; assets count as done once launched). */
export function trackedItems(items: CourseItem[]): CourseItem[] {
  return items.filter((i) => i.launchable)
}
