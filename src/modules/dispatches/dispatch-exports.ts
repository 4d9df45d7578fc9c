import type { Executor } from '../../infra/db/schema.ts'
import type { DispatchesTable } from '../../infra/db/tables/dispatches.ts'
import { findPackage } from '../packages/package.repository.ts'
import { zipFileName } from '../publish/zip-file-name.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { dispatchFrameUrl, type LinkSettings } from './dispatch.mapper.ts'
import { latestEvents } from './dispatch.repository.ts'
import { LAUNCH_REFUSED_EVENT } from './dispatch-launch.service.ts'
import { buildWrapperPackage } from './wrapper-package.builder.ts'

/**
 * The wrapper zip of a dispatch, SCORM 1.2 or 2004 (default: the dispatched package's version),
 * titled like the package. Every export of a dispatch carries the same frame URL and token.
 */
export async function exportWrapper(
  db: Executor,
  scope: TenantScope,
  row: DispatchesTable,
  options: { links: LinkSettings; scormVersion?: '1.2' | '2004'; now: Date },
): Promise<{ filename: string; zip: Buffer }> {
  const pkg = await findPackage(db, scope, row.package_id)
  const version = options.scormVersion ?? pkg?.scorm_version ?? '2004'
  const zip = await buildWrapperPackage({
    dispatchId: row.id,
    title: pkg?.title ?? row.name,
    scormVersion: version,
    frameUrl: dispatchFrameUrl(row, options.links),
    mtime: options.now,
  })
  const suffix = version === '1.2' ? 'scorm12' : 'scorm2004'
  return { filename: zipFileName(`${row.name} ${suffix}`), zip }
}

/** The latest refused launches of a dispatch (audit events), newest first. */
export async function listRefusals(
  db: Executor,
  scope: TenantScope,
  dispatchId: string,
  limit: number,
) {
  const rows = await latestEvents(db, scope, dispatchId, LAUNCH_REFUSED_EVENT, limit)
  return {
    refusals: rows.map((r) => {
      const data = JSON.parse(r.data) as Record<string, unknown>
      return {
        id: r.id,
        reason: String(data.reason ?? ''),
        origin: typeof data.origin === 'string' ? data.origin : null,
        learnerId: typeof data.learner_id === 'string' ? data.learner_id : null,
        occurredAt: r.occurred_at,
      }
    }),
  }
}
