/**
 * What the LMS does to a registration on its own, each with the statement it issues: abandon a
 * session that will not terminate (cmi5 §9.3.6, `abandoned`) and waive an AU (§9.3.7, `waived`).
 */
import type { Cmi5LaunchesTable, Cmi5RegistrationsTable } from '../../infra/db/tables/cmi5.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Cmi5Structure } from '../scorm/manifest/manifest.types.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import * as repo from './cmi5.repository.ts'
import {
  abandonedStatement,
  activityIds,
  secondsDuration,
  waivedStatement,
} from './lms-statements.ts'
import { emptyProgress, type RegistrationState, registrationStatus } from './move-on.ts'
import { type Cmi5Registrations, isUuid } from './registration.service.ts'

/** Reads a version's cmi5 structure in the caller's scope; null when it has none. */
export type StructureLoader = (
  scope: TenantScope,
  versionId: string,
) => Promise<Cmi5Structure | null>

export class Cmi5LmsActions {
  readonly #registrations: Cmi5Registrations
  readonly #structureOf: StructureLoader
  constructor(registrations: Cmi5Registrations, structureOf: StructureLoader) {
    this.#registrations = registrations
    this.#structureOf = structureOf
  }

  /** cmi5 §9.3.6: a session that ends without terminated; revokes its credential. */
  async abandonLaunch(
    scope: TenantScope,
    launch: Cmi5LaunchesTable,
    reg: Cmi5RegistrationsTable,
    structure: Cmi5Structure,
  ): Promise<void> {
    const { deps, writer } = this.#registrations
    const au = structure.aus[launch.au_index]
    const now = deps.clock.now()
    await repo.updateLaunch(deps.db, scope, launch.id, {
      status: 'abandoned',
      updated_at: now.toISOString(),
    })
    await writer.lrs.credentials.revokeLaunch(scope, launch.id)
    if (!au) return
    const ms = now.getTime() - Date.parse(launch.launched_at)
    const duration = secondsDuration(ms)
    const base = this.#registrations.statementBase(reg, launch.id)
    await writer.issue(scope, [abandonedStatement(base, au, launch.activity_id, duration)])
    const state = await this.#registrations.currentState(scope, reg)
    await writer.writeStatus(scope, reg.session_id, registrationStatus(structure, state, true), {
      seconds: Math.round(ms / 1000),
      duration,
      suspended: true,
    })
  }

  /** Abandons a launch by its cmi5 session id. */
  async abandon(scope: TenantScope, launchId: string): Promise<void> {
    const { db } = this.#registrations.deps
    const launch = isUuid(launchId) ? await repo.findLaunch(db, scope, launchId) : undefined
    if (!launch) {
      throw new AppError('not_found', `No cmi5 session ${launchId}`)
    }
    if (launch.status === 'terminated' || launch.status === 'abandoned') {
      throw new AppError('invalid_state', `The cmi5 session ${launchId} has ended`)
    }
    const reg = await repo.findRegistration(db, scope, launch.registration_id)
    const structure = reg ? await this.#structureOf(scope, reg.version_id) : null
    if (!reg || !structure) throw new AppError('not_found', `No cmi5 session ${launchId}`)
    await this.abandonLaunch(scope, launch, reg, structure)
  }

  /** cmi5 §9.3.7: the LMS waives an AU for a registration; its blocks and course may follow. */
  async waive(
    scope: TenantScope,
    registration: string,
    auIndex: number,
    reason: string,
  ): Promise<void> {
    const { deps, writer } = this.#registrations
    const reg = isUuid(registration)
      ? await repo.findRegistration(deps.db, scope, registration.toLowerCase())
      : undefined
    const structure = reg ? await this.#structureOf(scope, reg.version_id) : null
    if (!reg || !structure) throw new AppError('not_found', `No registration ${registration}`)
    const au = structure.aus[auIndex]
    if (!au) throw new AppError('validation_failed', `The course has no AU at index ${auIndex}`)
    const state = JSON.parse(reg.state) as RegistrationState
    const progress = state.aus[String(auIndex)] ?? emptyProgress()
    if (progress.waived) return
    const sessionId = crypto.randomUUID()
    const activityId = activityIds(deps.config.publicUrl, reg.package_id).au(auIndex)
    const base = this.#registrations.statementBase(reg, sessionId)
    await writer.issue(scope, [waivedStatement(base, au, activityId, reason)])
    const next = { ...state, aus: { ...state.aus, [auIndex]: { ...progress, waived: true } } }
    await this.#registrations.settle(scope, reg, structure, next, sessionId)
  }
}
