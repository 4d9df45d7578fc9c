/**
 * Launching a cmi5 AU (the spec's "LMS" side): the registration, `abandoned` for launches of it
 * left open, LMS.LaunchData, `launched`, and the AU's URL with endpoint, fetch, actor,
 * registration and activityId.
 */
import type { Cmi5LaunchesTable, Cmi5RegistrationsTable } from '../../infra/db/tables/cmi5.ts'
import type { SessionsTable } from '../../infra/db/tables/sessions.ts'
import { AppError } from '../../shared/app-error.ts'
import { isoNow } from '../../shared/clock.ts'
import { contentOriginsOf, tenantContentOrigin } from '../../shared/content-origin.ts'
import { agentKey } from '../lrs/agent.validator.ts'
import type { JsonObject } from '../lrs/xapi-primitives.ts'
import type { Cmi5Au } from '../scorm/manifest/manifest.types.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import * as repo from './cmi5.repository.ts'
import { LAUNCH_DATA_STATE_ID } from './cmi5.vocabulary.ts'
import { newFetchSecret } from './fetch-token.ts'
import { contentUrl, type LaunchedVersion, withParams } from './launch-url.ts'
import type { Cmi5LmsActions } from './lms-actions.service.ts'
import { activityIds, contextTemplate, launchedStatement } from './lms-statements.ts'
import { type RegistrationState, registrationStatus } from './move-on.ts'
import type { Cmi5Registrations, CourseLaunchInput } from './registration.service.ts'

export interface CourseLaunch {
  kind: 'cmi5' | 'tincan'
  launchUrl: string
  registration: string
  /** The cmi5 session id (`sessionid` extension) or Tin Can launch id. */
  launchId: string
}

export class Cmi5Launcher {
  readonly #registrations: Cmi5Registrations
  readonly #actions: Cmi5LmsActions
  constructor(registrations: Cmi5Registrations, actions: Cmi5LmsActions) {
    this.#registrations = registrations
    this.#actions = actions
  }

  async launch(
    scope: TenantScope,
    session: SessionsTable,
    version: LaunchedVersion,
    input: CourseLaunchInput,
  ): Promise<CourseLaunch> {
    const { deps, writer } = this.#registrations
    const structure = version.manifest.cmi5
    if (!structure) throw new AppError('invalid_state', 'The package is not a cmi5 course')
    const auIndex = input.auIndex ?? 0
    const au = structure.aus[auIndex]
    if (!au) throw new AppError('validation_failed', `The course has no AU at index ${auIndex}`)
    const launchMode = input.launchMode ?? 'Normal'
    const { row: reg, created } = await this.#registrations.registrationFor(scope, session, input)
    const launchId = crypto.randomUUID()
    for (const open of await repo.openLaunches(deps.db, scope, reg.id)) {
      await this.#actions.abandonLaunch(scope, open, reg, structure)
    }
    if (created) {
      const state = JSON.parse(reg.state) as RegistrationState
      await this.#registrations.settle(scope, reg, structure, state, launchId)
    }
    const activityId = activityIds(deps.config.publicUrl, reg.package_id).au(auIndex)
    const fetchSecret = newFetchSecret()
    const at = isoNow(deps.clock)
    const launch: Cmi5LaunchesTable = {
      tenant_id: scope.tenantId,
      mode: scope.mode,
      id: launchId,
      kind: 'cmi5',
      registration_id: reg.id,
      session_id: session.id,
      au_index: auIndex,
      activity_id: activityId,
      launch_mode: launchMode,
      status: 'launched',
      fetch_hash: fetchSecret.hash,
      fetched_at: null,
      preferences_read: 0,
      verbs: '[]',
      credential_id: null,
      launched_at: at,
      updated_at: at,
    }
    await repo.insertLaunch(deps.db, scope, launch)
    const origin = tenantContentOrigin(contentOriginsOf(deps.config), scope.tenantId)
    const actor = JSON.parse(reg.actor) as JsonObject
    const auUrl = contentUrl(deps, scope, version, session, auHref(version, au))
    const launchUrl = withParams(auUrl, {
      endpoint: `${deps.config.publicUrl}/xapi`,
      fetch: `${origin}/cmi5/fetch/${launchId}?k=${fetchSecret.secret}`,
      actor: JSON.stringify(actor),
      registration: reg.id,
      activityId,
    })
    await this.#writeLaunchData(scope, reg, au, launch, actor, input.returnUrl)
    const base = this.#registrations.statementBase(reg, launchId)
    await writer.issue(scope, [
      launchedStatement(base, au, activityId, { mode: launchMode, url: launchUrl }),
    ])
    const state = await this.#registrations.currentState(scope, reg)
    await writer.writeStatus(scope, session.id, registrationStatus(structure, state, true))
    return { kind: 'cmi5', launchUrl, registration: reg.id, launchId }
  }

  /** LMS.LaunchData (cmi5 §10.2.1): the state document the AU reads before it starts. */
  async #writeLaunchData(
    scope: TenantScope,
    reg: Cmi5RegistrationsTable,
    au: Cmi5Au,
    launch: Cmi5LaunchesTable,
    actor: JsonObject,
    returnUrl: string | undefined,
  ) {
    const data: JsonObject = {
      contextTemplate: contextTemplate(au, launch.id),
      launchMode: launch.launch_mode,
      launchMethod: au.launchMethod,
      moveOn: au.moveOn,
    }
    if (au.masteryScore !== null) data.masteryScore = au.masteryScore
    if (au.launchParameters !== null) data.launchParameters = au.launchParameters
    if (au.entitlementKey !== null) data.entitlementKey = { courseStructure: au.entitlementKey }
    if (returnUrl) data.returnURL = returnUrl
    const key = {
      kind: 'state' as const,
      activityId: launch.activity_id,
      agentKey: agentKey(actor) ?? '',
      registration: reg.id,
    }
    const body = { contentType: 'application/json', content: Buffer.from(JSON.stringify(data)) }
    const { documents } = this.#registrations.writer.lrs
    await documents.put(scope, key, LAUNCH_DATA_STATE_ID, body, {}, '1.0.3')
  }
}

/** The AU's launch href from the manifest's launches (same index and id), else the AU's URL. */
function auHref(version: LaunchedVersion, au: Cmi5Au): string {
  const index = version.manifest.cmi5?.aus.indexOf(au) ?? -1
  const target = version.manifest.launches.filter((l) => l.kind === 'au')[index]
  return target?.id === au.id
    ? target.href
    : (version.manifest.launches.find((l) => l.id === au.id)?.href ?? au.url)
}
