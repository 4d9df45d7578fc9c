import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import { isUniqueViolation } from '../../infra/db/errors.ts'
import type { Database, Executor } from '../../infra/db/schema.ts'
import type { SessionsTable } from '../../infra/db/tables/sessions.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Clock } from '../../shared/clock.ts'
import {
  contentOriginsOf,
  tenantContentOrigin,
  tokenAudience,
} from '../../shared/content-origin.ts'
import { newId } from '../../shared/ids.ts'
import { signToken } from '../../shared/signed-token.ts'
import { type CourseLaunchInput, createCmi5Services } from '../cmi5/index.ts'
import { recordAuditEvent } from '../events/audit-event.repository.ts'
import * as packages from '../packages/package.repository.ts'
import { recordSessionResult } from '../reports/progress-rollup.repository.ts'
import { sequencerEndsAttemptOf } from '../runtime/attempt-sequencing.ts'
import { findPlan, findTenant } from '../tenants/tenant.cross-tenant.repository.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { recordActiveLearner } from '../usage/usage.service.ts'
import * as repo from './session.repository.ts'
import { recomputedStatus } from './session-progress.ts'
import { isFinished } from './session-status.ts'

export interface LaunchInput {
  userId: string
  /** Shown to the SCO as cmi.learner_name; default the user id. */
  learnerName?: string
  /** The migration form: launch into this existing session. */
  sessionId?: string
  dispatchId?: string | null
  /** cmi5 / Tin Can only: the AU, actor, registration and launch mode (modules/cmi5). */
  course?: CourseLaunchInput
}

export interface LaunchResult {
  session_id: string
  launch_url: string
  package_id: string
  learner_id: string
  attempt: number
  expires_at: string
  /** cmi5 / Tin Can: the xAPI registration the launch URL carries. */
  registration?: string
  /** cmi5: the AU session id (`sessionid` extension) of this launch. */
  cmi5_session_id?: string
}

export interface LaunchServiceDeps {
  db: Kysely<Database>
  clock: Clock
  config: Config
}

/**
 * Creates or resumes a learner's session and signs its launch URL. One open attempt per
 * package × learner (× dispatch): a launch resumes it until it is completed (or passed), then
 * the next launch starts a new attempt on the package's active version.
 */
export class LaunchService {
  readonly #deps: LaunchServiceDeps
  constructor(deps: LaunchServiceDeps) {
    this.#deps = deps
  }

  /**
   * Two first launches of the same learner can race to open the attempt; the loser of the
   * unique index simply runs again and resumes the winner's session.
   */
  async launch(scope: TenantScope, packageId: string, input: LaunchInput): Promise<LaunchResult> {
    try {
      return await this.#launch(scope, packageId, input)
    } catch (err) {
      if (!isUniqueViolation(err)) throw err
      return this.#launch(scope, packageId, input)
    }
  }

  async #launch(scope: TenantScope, packageId: string, input: LaunchInput): Promise<LaunchResult> {
    const learnerId = input.userId.trim()
    if (!learnerId) throw new AppError('validation_failed', 'user_id must not be empty')
    const { db, clock, config } = this.#deps
    const now = clock.now()
    const session = await db.transaction().execute(async (trx) => {
      const pkg = await packages.findPackage(trx, scope, packageId)
      if (!pkg) throw new AppError('package_not_found', `No package ${packageId}`)
      if (pkg.status === 'archived') {
        throw new AppError('invalid_state', 'The package is archived; restore it to launch it')
      }
      const versionId = pkg.active_version_id
      if (!versionId) throw new AppError('invalid_state', 'The package has no active version')
      const key = { packageId, learnerId, dispatchId: input.dispatchId ?? null }
      const at = now.toISOString()
      const attempt = await currentAttempt(trx, scope, key, input.sessionId, at)
      const session = attempt
        ? await resumed(trx, scope, attempt, at)
        : await newAttempt(trx, scope, key, {
            versionId,
            scormVersion: pkg.scorm_version,
            learnerName: input.learnerName?.trim() || learnerId,
            at,
          })
      await recordLaunch(trx, scope, { packageId, learnerId, now })
      return session
    })
    const expiresAt = new Date(now.getTime() + config.launchTtlSeconds * 1000)
    const result = {
      session_id: session.id,
      package_id: packageId,
      learner_id: learnerId,
      attempt: Number(session.attempt_number),
      expires_at: expiresAt.toISOString(),
    }
    // cmi5 and Tin Can courses launch straight into their content with the LRS (modules/cmi5).
    const course = await createCmi5Services(db, clock, config).launch(
      scope,
      session,
      input.course ?? {},
    )
    if (course) {
      return {
        ...result,
        launch_url: course.launchUrl,
        ...(course.kind !== 'menu' && { registration: course.registration }),
        ...(course.kind === 'cmi5' && { cmi5_session_id: course.launchId }),
      }
    }
    // Bound to the tenant's content origin (docs/content-origins.md): refused on any other host.
    const origins = contentOriginsOf(config)
    const aud = tokenAudience(origins, scope.tenantId)
    const token = signToken(config.secretKey, 'launch', { sid: session.id, aud }, expiresAt)
    const origin = tenantContentOrigin(origins, scope.tenantId)
    const launchUrl = `${origin}/launch/${session.id}?token=${encodeURIComponent(token)}`
    return { ...result, launch_url: launchUrl }
  }
}

interface AttemptKey {
  packageId: string
  learnerId: string
  dispatchId: string | null
}

/**
 * The attempt a launch continues: the named session (the migration form), or the learner's open
 * attempt unless it has finished — then it is closed, and undefined starts a new one.
 */
async function currentAttempt(
  trx: Executor,
  scope: TenantScope,
  key: AttemptKey,
  sessionId: string | undefined,
  at: string,
): Promise<SessionsTable | undefined> {
  if (sessionId) {
    const named = await repo.findSession(trx, scope, sessionId)
    if (!named || named.package_id !== key.packageId) {
      throw new AppError(
        'session_not_found',
        `No session ${sessionId} for package ${key.packageId}`,
      )
    }
    if (named.learner_id !== key.learnerId) {
      throw new AppError('conflict', `Session ${sessionId} belongs to another learner`)
    }
    return named
  }
  const open = await repo.findOpenSession(trx, scope, key)
  // The one rule (session-status.ts): a new attempt only once this one has finished.
  if (!open || !isFinished(open)) return open
  const status = await recomputedStatus(trx, open)
  const finished =
    !status || isFinished({ completion_status: status.completion, success_status: status.success })
  // A multi-SCO SCORM 2004 attempt ends when its sequencer ends it (and closes it), not when its
  // root rolls up to completed (runtime/attempt-sequencing.ts).
  if (finished && (await sequencerEndsAttemptOf(trx, open))) return open
  if (finished) {
    await repo.updateSession(trx, scope, open.id, { open: 0, updated_at: at })
    return undefined
  }
  // Recorded too early by older code: the attempt goes on, with its status corrected.
  const corrected = {
    completion_status: status.completion,
    success_status: status.success,
    progress_percent: status.progressPercent,
    completed_at: null,
  }
  await repo.updateSession(trx, scope, open.id, corrected)
  await recordSessionResult(trx, scope, open, { ...open, ...corrected })
  return { ...open, ...corrected }
}

/** Counts one more launch of a continued attempt. */
async function resumed(
  trx: Executor,
  scope: TenantScope,
  current: SessionsTable,
  at: string,
): Promise<SessionsTable> {
  const launches = { last_launched_at: at, launch_count: Number(current.launch_count) + 1 }
  await repo.updateSession(trx, scope, current.id, { ...launches, updated_at: at })
  return { ...current, ...launches, updated_at: at }
}

/** Opens the learner's next attempt on the package's active version. */
async function newAttempt(
  trx: Executor,
  scope: TenantScope,
  key: AttemptKey,
  version: {
    versionId: string
    scormVersion: SessionsTable['scorm_version']
    learnerName: string
    at: string
  },
): Promise<SessionsTable> {
  const { packageId, learnerId } = key
  const { at } = version
  const attempt = (await repo.latestAttemptNumber(trx, scope, packageId, learnerId)) + 1
  const row: SessionsTable = {
    id: newId('ses'),
    tenant_id: scope.tenantId,
    mode: scope.mode,
    package_id: packageId,
    version_id: version.versionId,
    learner_id: learnerId,
    learner_name: version.learnerName,
    dispatch_id: key.dispatchId,
    attempt_number: attempt,
    open: 1,
    scorm_version: version.scormVersion,
    completion_status: 'not attempted',
    success_status: 'unknown',
    score_scaled: null,
    score_raw: null,
    score_min: null,
    score_max: null,
    progress_percent: 0,
    session_time: null,
    time_spent_seconds: 0,
    suspended: 0,
    current_item_id: null,
    launch_count: 1,
    created_at: at,
    updated_at: at,
    last_launched_at: at,
    completed_at: null,
    completed_event_at: null,
    failed_event_at: null,
  }
  await repo.insertSession(trx, scope, row)
  await recordSessionResult(trx, scope, null, row)
  return row
}

/** The launch's audit event and the learner's activity for the billing period. */
async function recordLaunch(
  trx: Executor,
  scope: TenantScope,
  launch: { packageId: string; learnerId: string; now: Date },
): Promise<void> {
  await recordAuditEvent(trx, scope, {
    type: 'package.launched',
    entityType: 'package',
    entityId: launch.packageId,
    data: {},
    occurredAt: launch.now.toISOString(),
  })
  const tenant = await findTenant(trx, scope.tenantId)
  const plan = tenant ? await findPlan(trx, tenant.plan_id) : undefined
  if (plan) {
    await recordActiveLearner(trx, scope, {
      learnerId: launch.learnerId,
      allotment: Number(plan.active_learner_allotment),
      at: launch.now,
    })
  }
}
