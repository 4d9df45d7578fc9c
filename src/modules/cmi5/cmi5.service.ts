import { createHash, timingSafeEqual } from 'node:crypto'
import type { Cmi5LaunchesTable, Cmi5RegistrationsTable } from '../../infra/db/tables/cmi5.ts'
import type { SessionsTable } from '../../infra/db/tables/sessions.ts'
import { AppError } from '../../shared/app-error.ts'
import { isoNow } from '../../shared/clock.ts'
import {
  contentOriginsOf,
  tenantContentOrigin,
  tokenAudience,
} from '../../shared/content-origin.ts'
import { randomBase62 } from '../../shared/ids.ts'
import { signToken } from '../../shared/signed-token.ts'
import { agentKey } from '../lrs/agent.validator.ts'
import type { JsonObject } from '../lrs/xapi-primitives.ts'
import type { Cmi5Au, Cmi5Structure, ManifestSummary } from '../scorm/manifest/manifest.types.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { findLaunchForFetch } from './cmi5.cross-tenant.repository.ts'
import * as repo from './cmi5.repository.ts'
import { LAUNCH_DATA_STATE_ID, type LaunchMode } from './cmi5.vocabulary.ts'
import {
  abandonedStatement,
  activityIds,
  contextTemplate,
  launchedStatement,
  type StatementBase,
  satisfiedStatement,
  secondsDuration,
  waivedStatement,
} from './lms-statements.ts'
import type { Cmi5Deps, LmsWriter } from './lms-writer.ts'
import {
  emptyProgress,
  emptyState,
  evaluateMoveOn,
  type RegistrationState,
  registrationStatus,
} from './move-on.ts'

/** How long an AU's content URL and its LRS credential stay valid (12 hours). */
export const LAUNCH_CREDENTIAL_TTL_MS = 12 * 3600 * 1000

export interface CourseLaunchInput {
  /** Index of the AU (cmi5) in course order; default 0. */
  auIndex?: number
  /** The xAPI Agent of the learner; default an account on PUBLIC_URL named by the user id. */
  actor?: JsonObject
  /** An existing or new registration UUID; default the session's, or a new one. */
  registration?: string
  launchMode?: LaunchMode
  returnUrl?: string
}

export interface CourseLaunch {
  kind: 'cmi5' | 'tincan'
  launchUrl: string
  registration: string
  /** The cmi5 session id (`sessionid` extension) or Tin Can launch id. */
  launchId: string
}

/** A version's manifest and files, as a launch needs them. */
export interface LaunchedVersion {
  packageId: string
  manifest: ManifestSummary
  blobPrefix: string
}

function hash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
}

/** Joins query parameters onto a URL that may have its own query and fragment. */
export function withParams(url: string, params: Record<string, string>): string {
  const hashAt = url.indexOf('#')
  const base = hashAt < 0 ? url : url.slice(0, hashAt)
  const fragment = hashAt < 0 ? '' : url.slice(hashAt)
  const query = new URLSearchParams(params).toString()
  return `${base}${base.includes('?') ? '&' : '?'}${query}${fragment}`
}

/**
 * cmi5 launches (the spec's "LMS" side): registrations, the AU launch URL with its one-time
 * fetch URL, LMS.LaunchData, LMS-issued statements, waiving and abandoning, and the session's
 * status from moveOn. Tin Can launches share registrations and launch rows (tincan.service.ts).
 */
export class Cmi5Service {
  readonly #deps: Cmi5Deps
  readonly writer: LmsWriter
  constructor(deps: Cmi5Deps, writer: LmsWriter) {
    this.#deps = deps
    this.writer = writer
  }

  get deps(): Cmi5Deps {
    return this.#deps
  }

  /** The package file URL on the tenant's content origin, with a content token for its files. */
  contentUrl(scope: TenantScope, version: LaunchedVersion, session: SessionsTable, href: string) {
    if (/^https?:\/\//i.test(href)) return href
    const { config, clock } = this.#deps
    const origins = contentOriginsOf(config)
    const aud = tokenAudience(origins, scope.tenantId)
    const expires = new Date(clock.now().getTime() + LAUNCH_CREDENTIAL_TTL_MS)
    const token = signToken(
      config.secretKey,
      'content',
      { p: version.blobPrefix, sid: session.id, aud },
      expires,
    )
    return `${tenantContentOrigin(origins, scope.tenantId)}/c/${token}/${href}`
  }

  defaultActor(session: SessionsTable): JsonObject {
    return {
      objectType: 'Agent',
      name: session.learner_name,
      account: { homePage: this.#deps.config.publicUrl, name: session.learner_id },
    }
  }

  /** The registration to launch into: the given id, else the session's, else a new one. */
  async registrationFor(
    scope: TenantScope,
    session: SessionsTable,
    input: CourseLaunchInput,
  ): Promise<{ row: Cmi5RegistrationsTable; created: boolean }> {
    const { db } = this.#deps
    const wanted = input.registration?.toLowerCase()
    if (wanted !== undefined && !isUuid(wanted)) {
      throw new AppError('validation_failed', 'registration must be a UUID')
    }
    const found = wanted
      ? await repo.findRegistration(db, scope, wanted)
      : await repo.findRegistrationOfSession(db, scope, session.id)
    const at = isoNow(this.#deps.clock)
    if (found) {
      if (found.package_id !== session.package_id || found.learner_id !== session.learner_id) {
        throw new AppError(
          'conflict',
          `Registration ${wanted} belongs to another course or learner`,
        )
      }
      if (found.session_id !== session.id) {
        await repo.updateRegistration(db, scope, found.id, {
          session_id: session.id,
          updated_at: at,
        })
      }
      return { row: { ...found, session_id: session.id }, created: false }
    }
    const row: Cmi5RegistrationsTable = {
      tenant_id: scope.tenantId,
      mode: scope.mode,
      id: wanted ?? crypto.randomUUID(),
      package_id: session.package_id,
      version_id: session.version_id,
      session_id: session.id,
      learner_id: session.learner_id,
      actor: JSON.stringify(input.actor ?? this.defaultActor(session)),
      state: JSON.stringify(emptyState()),
      created_at: at,
      updated_at: at,
    }
    await repo.insertRegistration(db, scope, row)
    return { row, created: true }
  }

  base(reg: Cmi5RegistrationsTable, sessionId: string): StatementBase {
    return {
      actor: JSON.parse(reg.actor) as JsonObject,
      registration: reg.id,
      sessionId,
      timestamp: isoNow(this.#deps.clock),
    }
  }

  /**
   * Evaluates moveOn after a change of `state`, issues `satisfied` for what became satisfied
   * (blocks innermost first, then the course), saves the state and the session's status.
   */
  async settle(
    scope: TenantScope,
    reg: Cmi5RegistrationsTable,
    structure: Cmi5Structure,
    state: RegistrationState,
    sessionId: string,
    ended?: { seconds: number; duration: string | null; suspended: boolean },
  ): Promise<RegistrationState> {
    const change = evaluateMoveOn(structure, state)
    const ids = activityIds(this.#deps.config.publicUrl, reg.package_id)
    const base = this.base(reg, sessionId)
    const statements = change.blocks.map((b) =>
      satisfiedStatement(base, { activityId: ids.block(b.index), groupingId: b.id, kind: 'block' }),
    )
    if (change.course) {
      statements.push(
        satisfiedStatement(base, {
          activityId: ids.course,
          groupingId: structure.courseId,
          kind: 'course',
        }),
      )
    }
    await repo.updateRegistration(this.#deps.db, scope, reg.id, {
      state: JSON.stringify(change.state),
      updated_at: isoNow(this.#deps.clock),
    })
    await this.writer.issue(scope, statements)
    const status = registrationStatus(structure, change.state, true)
    await this.writer.writeStatus(scope, reg.session_id, status, ended)
    return change.state
  }

  /**
   * Launches an AU: the registration (with `satisfied` for what is satisfied from the start,
   * such as NotApplicable AUs), `abandoned` for launches of it left open, LMS.LaunchData,
   * `launched`, and the AU's URL with endpoint, fetch, actor, registration and activityId.
   */
  async launch(
    scope: TenantScope,
    session: SessionsTable,
    version: LaunchedVersion,
    input: CourseLaunchInput,
  ): Promise<CourseLaunch> {
    const structure = version.manifest.cmi5
    if (!structure) throw new AppError('invalid_state', 'The package is not a cmi5 course')
    const auIndex = input.auIndex ?? 0
    const au = structure.aus[auIndex]
    if (!au) throw new AppError('validation_failed', `The course has no AU at index ${auIndex}`)
    const launchMode = input.launchMode ?? 'Normal'
    const { row: reg, created } = await this.registrationFor(scope, session, input)
    const launchId = crypto.randomUUID()
    for (const open of await repo.openLaunches(this.#deps.db, scope, reg.id)) {
      await this.abandonLaunch(scope, open, reg, structure)
    }
    if (created) {
      await this.settle(scope, reg, structure, JSON.parse(reg.state) as RegistrationState, launchId)
    }
    const ids = activityIds(this.#deps.config.publicUrl, reg.package_id)
    const activityId = ids.au(auIndex)
    const secret = randomBase62(32)
    const at = isoNow(this.#deps.clock)
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
      fetch_hash: hash(secret),
      fetched_at: null,
      preferences_read: 0,
      verbs: '[]',
      credential_id: null,
      launched_at: at,
      updated_at: at,
    }
    await repo.insertLaunch(this.#deps.db, scope, launch)
    const origin = tenantContentOrigin(contentOriginsOf(this.#deps.config), scope.tenantId)
    const actor = JSON.parse(reg.actor) as JsonObject
    const auUrl = this.contentUrl(scope, version, session, auHref(version, au))
    const launchUrl = withParams(auUrl, {
      endpoint: `${this.#deps.config.publicUrl}/xapi`,
      fetch: `${origin}/cmi5/fetch/${launchId}?k=${secret}`,
      actor: JSON.stringify(actor),
      registration: reg.id,
      activityId,
    })
    await this.#writeLaunchData(scope, reg, au, launch, actor, input.returnUrl)
    const base = this.base(reg, launchId)
    await this.writer.issue(scope, [
      launchedStatement(base, au, activityId, { mode: launchMode, url: launchUrl }),
    ])
    const state = JSON.parse((await this.#reload(scope, reg)).state) as RegistrationState
    await this.writer.writeStatus(scope, session.id, registrationStatus(structure, state, true))
    return { kind: 'cmi5', launchUrl, registration: reg.id, launchId }
  }

  async #reload(scope: TenantScope, reg: Cmi5RegistrationsTable) {
    return (await repo.findRegistration(this.#deps.db, scope, reg.id)) ?? reg
  }

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
    await this.writer.lrs.documents.put(scope, key, LAUNCH_DATA_STATE_ID, body, {}, '1.0.3')
  }

  /**
   * The fetch URL (cmi5 §8.2): the first POST gets an `auth-token` (a Basic credential for this
   * launch only); later ones get error-code 1, an unknown or wrong one 3 — always with 200.
   */
  async fetch(launchId: string, secret: string): Promise<JsonObject> {
    const { db, clock } = this.#deps
    const launch = isUuid(launchId) ? await findLaunchForFetch(db, launchId) : undefined
    const given = Buffer.from(hash(secret), 'hex')
    if (!launch || !timingSafeEqual(given, Buffer.from(launch.fetch_hash, 'hex'))) {
      return { 'error-code': '3', 'error-text': 'Unknown fetch URL' }
    }
    if (launch.status === 'terminated' || launch.status === 'abandoned') {
      return { 'error-code': '2', 'error-text': 'The session has ended' }
    }
    const scope = { tenantId: launch.tenant_id, mode: launch.mode }
    if (!(await repo.claimFetch(db, scope, launch.id, isoNow(clock)))) {
      return { 'error-code': '1', 'error-text': 'The fetch URL has already been used' }
    }
    const credential = await this.writer.lrs.credentials.createForLaunch(scope, {
      launchId: launch.id,
      label: `cmi5 session ${launch.id}`,
      expiresAt: new Date(clock.now().getTime() + LAUNCH_CREDENTIAL_TTL_MS),
    })
    await repo.updateLaunch(db, scope, launch.id, { credential_id: credential.id })
    return { 'auth-token': credential.basicToken }
  }

  /** cmi5 §9.3.6: a session that ends without terminated; revokes its credential. */
  async abandonLaunch(
    scope: TenantScope,
    launch: Cmi5LaunchesTable,
    reg: Cmi5RegistrationsTable,
    structure: Cmi5Structure,
  ): Promise<void> {
    const au = structure.aus[launch.au_index]
    const now = this.#deps.clock.now()
    await repo.updateLaunch(this.#deps.db, scope, launch.id, {
      status: 'abandoned',
      updated_at: now.toISOString(),
    })
    await this.writer.lrs.credentials.revokeLaunch(scope, launch.id)
    if (!au) return
    const ms = now.getTime() - Date.parse(launch.launched_at)
    const duration = secondsDuration(ms)
    await this.writer.issue(scope, [
      abandonedStatement(this.base(reg, launch.id), au, launch.activity_id, duration),
    ])
    const state = JSON.parse((await this.#reload(scope, reg)).state) as RegistrationState
    await this.writer.writeStatus(
      scope,
      reg.session_id,
      registrationStatus(structure, state, true),
      {
        seconds: Math.round(ms / 1000),
        duration,
        suspended: true,
      },
    )
  }

  /** The launch and its course, for abandoning by the cmi5 session id. */
  async abandon(scope: TenantScope, launchId: string, structureOf: StructureLoader) {
    const launch = isUuid(launchId)
      ? await repo.findLaunch(this.#deps.db, scope, launchId)
      : undefined
    if (!launch) {
      throw new AppError('not_found', `No cmi5 session ${launchId}`)
    }
    if (launch.status === 'terminated' || launch.status === 'abandoned') {
      throw new AppError('invalid_state', `The cmi5 session ${launchId} has ended`)
    }
    const reg = await repo.findRegistration(this.#deps.db, scope, launch.registration_id)
    const structure = reg ? await structureOf(reg.version_id) : null
    if (!reg || !structure) throw new AppError('not_found', `No cmi5 session ${launchId}`)
    await this.abandonLaunch(scope, launch, reg, structure)
  }

  /** cmi5 §9.3.7: the LMS waives an AU for a registration; its blocks and course may follow. */
  async waive(
    scope: TenantScope,
    registration: string,
    auIndex: number,
    reason: string,
    structureOf: StructureLoader,
  ): Promise<void> {
    const reg = isUuid(registration)
      ? await repo.findRegistration(this.#deps.db, scope, registration.toLowerCase())
      : undefined
    const structure = reg ? await structureOf(reg.version_id) : null
    if (!reg || !structure) throw new AppError('not_found', `No registration ${registration}`)
    const au = structure.aus[auIndex]
    if (!au) throw new AppError('validation_failed', `The course has no AU at index ${auIndex}`)
    const state = JSON.parse(reg.state) as RegistrationState
    const progress = state.aus[String(auIndex)] ?? emptyProgress()
    if (progress.waived) return
    const sessionId = crypto.randomUUID()
    const activityId = activityIds(this.#deps.config.publicUrl, reg.package_id).au(auIndex)
    await this.writer.issue(scope, [
      waivedStatement(this.base(reg, sessionId), au, activityId, reason),
    ])
    const next = { ...state, aus: { ...state.aus, [auIndex]: { ...progress, waived: true } } }
    await this.settle(scope, reg, structure, next, sessionId)
  }
}

/** Reads a version's cmi5 structure; null when it has none. */
export type StructureLoader = (versionId: string) => Promise<Cmi5Structure | null>

function auHref(version: LaunchedVersion, au: Cmi5Au): string {
  const index = version.manifest.cmi5?.aus.indexOf(au) ?? -1
  const target = version.manifest.launches.filter((l) => l.kind === 'au')[index]
  return target?.id === au.id
    ? target.href
    : (version.manifest.launches.find((l) => l.id === au.id)?.href ?? au.url)
}
