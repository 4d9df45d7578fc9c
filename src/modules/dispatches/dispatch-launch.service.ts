import type { Kysely } from 'kysely'
import type { Database } from '../../infra/db/schema.ts'
import type { DispatchesTable } from '../../infra/db/tables/dispatches.ts'
import { AppError, isAppError } from '../../shared/app-error.ts'
import type { Clock } from '../../shared/clock.ts'
import { audienceMatches, type ContentOrigins } from '../../shared/content-origin.ts'
import { verifyToken } from '../../shared/signed-token.ts'
import { recordAuditEvent } from '../events/audit-event.repository.ts'
import { findPackage } from '../packages/package.repository.ts'
import type { LaunchService } from '../sessions/launch.service.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { originAllowed } from './allowed-domains.ts'
import { findDispatchById } from './dispatch.cross-tenant.repository.ts'
import { type DispatchTokenClaims, parseList } from './dispatch.mapper.ts'
import * as repo from './dispatch.repository.ts'
import { effectiveStatus, type RefusalReason, statusRefusal } from './dispatch.state-machine.ts'
import {
  countRateLimited,
  type Registration,
  register,
} from './dispatch-registration.repository.ts'

/** The audit event type of a refused launch (kept in the audit log, never delivered). */
export const LAUNCH_REFUSED_EVENT = 'dispatch.launch_refused'

/** What the learner reads inside the wrapper, per reason. */
export const REFUSAL_MESSAGES: Readonly<Record<RefusalReason, string>> = {
  paused:
    'This course is paused for the moment. Please try again later, or ask your training administrator.',
  expired: 'Access to this course has ended. Please ask your training administrator.',
  archived: 'This course is no longer available here. Please ask your training administrator.',
  deleted: 'This course is no longer available here. Please ask your training administrator.',
  license_limit:
    'All the places for this course are taken. Please ask your training administrator for access.',
  domain_not_allowed:
    'This course cannot be opened from this learning platform. Please ask your training administrator.',
  no_learner:
    'Your learning platform did not say who you are. Please open the course from your learning platform.',
  package_unavailable:
    'This course cannot be opened right now. Please try again later, or ask your training administrator.',
  rate_limited: 'Many people are starting this course right now. Please try again in a minute.',
  wrapper_revoked:
    'This copy of the course has been replaced. Please ask your training administrator to install the new one.',
}

export interface DispatchLaunchInput {
  /** The dispatch token from the wrapper's frame URL. */
  token: string
  /** The client LMS's origin, as the browser reported it in the handshake (`event.origin`). */
  origin: string
  learnerId: string
  learnerName?: string
  /** The learner key the wrapper keeps in the client LMS; absent on a first launch. */
  learnerKey?: string
  /** The request's Host: the token is valid only on its tenant's content origin. */
  host: string | undefined
}

export interface DispatchLaunchResult {
  dispatch_id: string
  session_id: string
  /** Our learner id: the LMS's, or a separate one for a launch without the learner's key. */
  learner_id: string
  launch_url: string
  /** A new registration's key, for the wrapper to keep in the client LMS; null when resumed. */
  learner_key: string | null
}

export interface DispatchLaunchDeps {
  db: Kysely<Database>
  clock: Clock
  secretKey: string
  origins: ContentOrigins
  /** New seats or registrations per dispatch per minute; 0: no limit. */
  newLearnersPerMinute: number
  launches: LaunchService
}

/** Thrown inside the admission transaction to roll back a seat row that found no seat. */
class NoSeat extends Error {}

/** Registrations that let the launch through. */
type Admitted = Extract<Registration, { kind: 'resumed' | 'new' }>

/**
 * Launches from a wrapper package (docs/dispatch.md): checks the dispatch token, status, expiry,
 * the LMS origin against allowedDomains and the licence limit, then launches the package's
 * active version for the LMS learner with the dispatch id. A refusal is recorded (audit event
 * `dispatch.launch_refused` with its reason, and the refusal count) before it is answered.
 */
export class DispatchLaunchService {
  readonly #deps: DispatchLaunchDeps
  constructor(deps: DispatchLaunchDeps) {
    this.#deps = deps
  }

  /**
   * The wrapper generation a frame token carries, or a 401 when it is forged, for another
   * dispatch, or presented on another host than its tenant's content origin.
   */
  verify(dispatchId: string, token: string, host: string | undefined): number {
    const result = verifyToken<DispatchTokenClaims>(
      this.#deps.secretKey,
      'dispatch',
      token,
      this.#deps.clock.now(),
    )
    if (
      !result.ok ||
      result.claims.did !== dispatchId ||
      !audienceMatches(this.#deps.origins, result.claims.aud, host)
    ) {
      throw new AppError('unauthorized', 'This course link is not valid')
    }
    const gen = result.claims.gen
    return typeof gen === 'number' && Number.isSafeInteger(gen) ? gen : 0
  }

  async launch(dispatchId: string, input: DispatchLaunchInput): Promise<DispatchLaunchResult> {
    const generation = this.verify(dispatchId, input.token, input.host)
    const { db, clock, launches } = this.#deps
    const row = await findDispatchById(db, dispatchId)
    if (!row) throw new AppError('dispatch_not_found', 'This course is not available')
    const scope: TenantScope = { tenantId: row.tenant_id, mode: row.mode }
    const learnerId = input.learnerId.trim()
    const context = { origin: input.origin, learnerId }
    const now = clock.now()

    const refusal =
      (generation === Number(row.wrapper_generation) ? null : 'wrapper_revoked') ??
      statusRefusal(effectiveStatus(row, now)) ??
      (originAllowed(input.origin, parseList(row.allowed_domains)) ? null : 'domain_not_allowed') ??
      (learnerId && learnerId.length <= 255 ? null : 'no_learner') ??
      (await this.#packageRefusal(scope, row))
    if (refusal) return this.#refuse(scope, row, refusal, context)

    const admission = await this.#admit(row, learnerId, input.learnerKey, now)
    if (admission === 'full') return this.#refuse(scope, row, 'license_limit', context)
    if (admission === 'rate_limited') return this.#refuse(scope, row, 'rate_limited', context)

    let launched: Awaited<ReturnType<LaunchService['launch']>>
    try {
      launched = await launches.launch(scope, row.package_id, {
        userId: admission.learnerId,
        learnerName: input.learnerName?.trim() || learnerId,
        dispatchId: row.id,
      })
    } catch (err) {
      // The package was archived (or lost its version) between the check and the launch.
      if (isAppError(err) && (err.code === 'invalid_state' || err.code === 'package_not_found')) {
        return this.#refuse(scope, row, 'package_unavailable', context)
      }
      throw err
    }
    await db.transaction().execute(async (trx) => {
      await repo.countLaunch(trx, scope, row.id)
      await recordAuditEvent(trx, scope, {
        type: 'dispatch.launched',
        entityType: 'dispatch',
        entityId: row.id,
        data: {
          dispatch_id: row.id,
          session_id: launched.session_id,
          learner_id: admission.learnerId,
          lms_learner_id: learnerId,
          origin: input.origin,
          new_learner: admission.kind === 'new' && admission.newSeat,
          new_registration: admission.kind === 'new',
          separated: admission.kind === 'new' && admission.separated,
        },
        occurredAt: clock.now().toISOString(),
      })
    })
    return {
      dispatch_id: row.id,
      session_id: launched.session_id,
      learner_id: admission.learnerId,
      launch_url: launched.launch_url,
      learner_key: admission.kind === 'new' ? admission.key : null,
    }
  }

  /** The learner's registration (resumed by key, or new), or why there is none. */
  async #admit(
    row: DispatchesTable,
    lmsLearnerId: string,
    key: string | undefined,
    now: Date,
  ): Promise<Admitted | 'full' | 'rate_limited'> {
    try {
      return await this.#deps.db.transaction().execute(async (trx) => {
        const result = await register(trx, { tenantId: row.tenant_id, mode: row.mode }, row, {
          lmsLearnerId,
          key,
          at: now.toISOString(),
          perMinute: this.#deps.newLearnersPerMinute,
        })
        if (result.kind === 'full') throw new NoSeat()
        return result.kind === 'rate_limited' ? 'rate_limited' : result
      })
    } catch (err) {
      if (err instanceof NoSeat) return 'full'
      throw err
    }
  }

  async #packageRefusal(scope: TenantScope, row: DispatchesTable): Promise<RefusalReason | null> {
    const pkg = await findPackage(this.#deps.db, scope, row.package_id)
    return pkg && pkg.status !== 'archived' && pkg.active_version_id ? null : 'package_unavailable'
  }

  async #refuse(
    scope: TenantScope,
    row: DispatchesTable,
    reason: RefusalReason,
    context: { origin: string; learnerId: string },
  ): Promise<never> {
    const { db, clock } = this.#deps
    await db.transaction().execute(async (trx) => {
      await repo.countRefusal(trx, scope, row.id)
      if (reason === 'rate_limited') await countRateLimited(trx, scope, row.id)
      await recordAuditEvent(trx, scope, {
        type: LAUNCH_REFUSED_EVENT,
        entityType: 'dispatch',
        entityId: row.id,
        severity: 'warn',
        data: {
          dispatch_id: row.id,
          reason,
          origin: context.origin.slice(0, 300),
          learner_id: context.learnerId.slice(0, 255),
        },
        occurredAt: clock.now().toISOString(),
      })
    })
    throw new AppError('launch_refused', REFUSAL_MESSAGES[reason], { reason })
  }
}
