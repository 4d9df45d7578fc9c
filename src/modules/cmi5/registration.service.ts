/**
 * A learner's cmi5 registration: found or created for a launch, and settled after each change of
 * its state — moveOn evaluated, `satisfied` issued for what became satisfied, the Courseport
 * session's status written. Tin Can launches share registrations (tincan.service.ts).
 */
import type { Cmi5RegistrationsTable } from '../../infra/db/tables/cmi5.ts'
import type { SessionsTable } from '../../infra/db/tables/sessions.ts'
import { AppError } from '../../shared/app-error.ts'
import { isoNow } from '../../shared/clock.ts'
import type { JsonObject } from '../lrs/xapi-primitives.ts'
import type { Cmi5Structure } from '../scorm/manifest/manifest.types.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import * as repo from './cmi5.repository.ts'
import type { LaunchMode } from './cmi5.vocabulary.ts'
import { activityIds, type StatementBase, satisfiedStatement } from './lms-statements.ts'
import type { Cmi5Deps, LmsWriter } from './lms-writer.ts'
import {
  emptyState,
  evaluateMoveOn,
  type RegistrationState,
  registrationStatus,
} from './move-on.ts'

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

/** How a session ended, for the session's time and status (terminated or abandoned). */
export interface SessionEnd {
  seconds: number
  duration: string | null
  suspended: boolean
}

export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
}

export class Cmi5Registrations {
  readonly deps: Cmi5Deps
  readonly writer: LmsWriter
  constructor(deps: Cmi5Deps, writer: LmsWriter) {
    this.deps = deps
    this.writer = writer
  }

  defaultActor(session: SessionsTable): JsonObject {
    return {
      objectType: 'Agent',
      name: session.learner_name,
      account: { homePage: this.deps.config.publicUrl, name: session.learner_id },
    }
  }

  /** The registration to launch into: the given id, else the session's, else a new one. */
  async registrationFor(
    scope: TenantScope,
    session: SessionsTable,
    input: CourseLaunchInput,
  ): Promise<{ row: Cmi5RegistrationsTable; created: boolean }> {
    const { db } = this.deps
    const wanted = input.registration?.toLowerCase()
    if (wanted !== undefined && !isUuid(wanted)) {
      throw new AppError('validation_failed', 'registration must be a UUID')
    }
    const found = wanted
      ? await repo.findRegistration(db, scope, wanted)
      : await repo.findRegistrationOfSession(db, scope, session.id)
    const at = isoNow(this.deps.clock)
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

  /** What every statement the LMS issues for this registration and session carries. */
  statementBase(reg: Cmi5RegistrationsTable, sessionId: string): StatementBase {
    return {
      actor: JSON.parse(reg.actor) as JsonObject,
      registration: reg.id,
      sessionId,
      timestamp: isoNow(this.deps.clock),
    }
  }

  /** The registration's latest state: another request may have settled it meanwhile. */
  async currentState(scope: TenantScope, reg: Cmi5RegistrationsTable): Promise<RegistrationState> {
    const row = (await repo.findRegistration(this.deps.db, scope, reg.id)) ?? reg
    return JSON.parse(row.state) as RegistrationState
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
    ended?: SessionEnd,
  ): Promise<RegistrationState> {
    const change = evaluateMoveOn(structure, state)
    const ids = activityIds(this.deps.config.publicUrl, reg.package_id)
    const base = this.statementBase(reg, sessionId)
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
    await repo.updateRegistration(this.deps.db, scope, reg.id, {
      state: JSON.stringify(change.state),
      updated_at: isoNow(this.deps.clock),
    })
    await this.writer.issue(scope, statements)
    const status = registrationStatus(structure, change.state, true)
    await this.writer.writeStatus(scope, reg.session_id, status, ended)
    return change.state
  }
}
