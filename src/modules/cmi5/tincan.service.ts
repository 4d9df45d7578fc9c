import type { Cmi5LaunchesTable, Cmi5RegistrationsTable } from '../../infra/db/tables/cmi5.ts'
import type { SessionsTable } from '../../infra/db/tables/sessions.ts'
import { AppError } from '../../shared/app-error.ts'
import { isoNow } from '../../shared/clock.ts'
import type { LrsCredential } from '../lrs/credential.service.ts'
import { isObject, type JsonObject } from '../lrs/xapi-primitives.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import * as repo from './cmi5.repository.ts'
import { VERB } from './cmi5.vocabulary.ts'
import type { CourseLaunch } from './cmi5-launch.service.ts'
import {
  contentUrl,
  LAUNCH_CREDENTIAL_TTL_MS,
  type LaunchedVersion,
  withParams,
} from './launch-url.ts'
import { emptyProgress, type RegistrationState } from './move-on.ts'
import type { Cmi5Registrations, CourseLaunchInput } from './registration.service.ts'

/**
 * Tin Can (tincan.xml) launches with the established Rustici convention: the course's launch
 * file with `endpoint`, `auth` (a Basic credential for this launch only), `actor`,
 * `registration` and `activity_id`. The session's status follows completed / passed / failed
 * statements about the course's main activity.
 */
export class TinCanService {
  readonly #registrations: Cmi5Registrations
  constructor(registrations: Cmi5Registrations) {
    this.#registrations = registrations
  }

  async launch(
    scope: TenantScope,
    session: SessionsTable,
    version: LaunchedVersion,
    input: CourseLaunchInput,
  ): Promise<CourseLaunch> {
    const activity = version.manifest.xapi?.activities.find((a) => a.launch !== null)
    const target = version.manifest.launches[0]
    if (!activity || !target)
      throw new AppError('invalid_state', 'The course has nothing to launch')
    const { db, clock } = this.#registrations.deps
    const { row: reg } = await this.#registrations.registrationFor(scope, session, input)
    const launchId = crypto.randomUUID()
    const at = isoNow(clock)
    const launch: Cmi5LaunchesTable = {
      tenant_id: scope.tenantId,
      mode: scope.mode,
      id: launchId,
      kind: 'tincan',
      registration_id: reg.id,
      session_id: session.id,
      au_index: 0,
      activity_id: activity.id,
      launch_mode: 'Normal',
      status: 'launched',
      fetch_hash: '',
      fetched_at: at,
      preferences_read: 1,
      verbs: '[]',
      credential_id: null,
      launched_at: at,
      updated_at: at,
    }
    await repo.insertLaunch(db, scope, launch)
    const credential = await this.#registrations.writer.lrs.credentials.createForLaunch(scope, {
      launchId,
      label: `Tin Can launch ${launchId}`,
      expiresAt: new Date(clock.now().getTime() + LAUNCH_CREDENTIAL_TTL_MS),
    })
    await repo.updateLaunch(db, scope, launchId, { credential_id: credential.id })
    const url = contentUrl(this.#registrations.deps, scope, version, session, target.href)
    const launchUrl = withParams(url, {
      endpoint: `${this.#registrations.deps.config.publicUrl}/xapi/`,
      auth: `Basic ${credential.basicToken}`,
      actor: reg.actor,
      registration: reg.id,
      activity_id: activity.id,
    })
    return { kind: 'tincan', launchUrl, registration: reg.id, launchId }
  }

  /** completed / passed / failed about the course's activity move the session's status. */
  async stored(
    scope: LrsCredential,
    launch: Cmi5LaunchesTable,
    reg: Cmi5RegistrationsTable,
    statements: JsonObject[],
  ): Promise<void> {
    const state = JSON.parse(reg.state) as RegistrationState
    let p = state.aus['0'] ?? emptyProgress()
    let changed = false
    for (const st of statements) {
      const object = isObject(st.object) ? st.object : {}
      if (object.id !== launch.activity_id) continue
      const verb = isObject(st.verb) ? st.verb.id : undefined
      const result = isObject(st.result) ? st.result : {}
      const s = isObject(result.score) ? result.score : null
      const num = (v: unknown) => (typeof v === 'number' ? v : null)
      const score = s
        ? { scaled: num(s.scaled), raw: num(s.raw), min: num(s.min), max: num(s.max) }
        : p.score
      if (verb === VERB.completed || result.completion === true) p = { ...p, completed: true }
      if (verb === VERB.passed) p = { ...p, passed: true, failed: false, score }
      if (verb === VERB.failed && !p.passed) p = { ...p, failed: true, score }
      changed = true
    }
    if (!changed) return
    const next: RegistrationState = {
      ...state,
      aus: { ...state.aus, '0': p },
      courseSatisfied: p.completed || p.passed,
    }
    await repo.updateRegistration(this.#registrations.deps.db, scope, reg.id, {
      state: JSON.stringify(next),
      updated_at: isoNow(this.#registrations.deps.clock),
    })
    await this.#registrations.writer.writeStatus(scope, reg.session_id, {
      completion: next.courseSatisfied ? 'completed' : 'incomplete',
      success: p.passed ? 'passed' : p.failed ? 'failed' : 'unknown',
      score: p.score ?? { scaled: null, raw: null, min: null, max: null },
      progressPercent: next.courseSatisfied ? 100 : 0,
    })
  }
}
