import { setTimeout as sleep } from 'node:timers/promises'
import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import type { Database } from '../../infra/db/schema.ts'
import type { SessionsTable } from '../../infra/db/tables/sessions.ts'
import { type Clock, isoNow } from '../../shared/clock.ts'
import { recordAuditEvent } from '../events/audit-event.repository.ts'
import { createLrsServices, type LrsServices } from '../lrs/index.ts'
import type { LrsCaller } from '../lrs/statement.service.ts'
import type { JsonObject } from '../lrs/xapi-primitives.ts'
import { recordSessionResult } from '../reports/progress-rollup.repository.ts'
import { sessionEventData } from '../sessions/session.mapper.ts'
import * as sessions from '../sessions/session.repository.ts'
import { isFinished } from '../sessions/session-status.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import type { RegistrationStatus } from './move-on.ts'

export interface Cmi5Deps {
  db: Kysely<Database>
  clock: Clock
  config: Config
}

/**
 * What the LMS writes: its own statements into the LRS, in order, and the Courseport session's
 * status with the session events its transitions cause (as updateSessionProgress does for
 * SCORM: `session.completed` once, `session.failed` once, each carrying the session as written).
 */
export class LmsWriter {
  readonly lrs: LrsServices
  readonly #deps: Cmi5Deps
  constructor(deps: Cmi5Deps) {
    this.#deps = deps
    this.lrs = createLrsServices(deps.db, deps.clock)
  }

  #caller(scope: TenantScope): LrsCaller {
    return {
      ...scope,
      credentialId: null,
      authority: {
        objectType: 'Agent',
        name: 'Courseport',
        account: { homePage: this.#deps.config.publicUrl, name: 'courseport-lms' },
      },
    }
  }

  /**
   * Stores statements one by one, each in a later millisecond than the one before (and than
   * anything stored when called): readers order a registration's statements by `stored`, and
   * the spec's order (satisfied after the completed that caused it) must survive that.
   */
  async issue(scope: TenantScope, statements: JsonObject[]): Promise<void> {
    for (const statement of statements) {
      const start = isoNow(this.#deps.clock)
      // A manual clock never moves: give up after a few tries rather than wait forever.
      for (let i = 0; i < 5 && isoNow(this.#deps.clock) === start; i++) await sleep(1)
      await this.lrs.statements.store(this.#caller(scope), {
        statements: [statement],
        parts: [],
        version: '1.0.3',
      })
    }
  }

  /** Writes a registration's status onto its session; `ended` adds a finished launch's time. */
  async writeStatus(
    scope: TenantScope,
    sessionId: string,
    status: RegistrationStatus,
    ended?: { seconds: number; duration: string | null; suspended: boolean },
  ): Promise<void> {
    const at = isoNow(this.#deps.clock)
    await this.#deps.db.transaction().execute(async (trx) => {
      const session = await sessions.findSession(trx, scope, sessionId)
      if (!session) return
      const reached = isFinished({
        completion_status: status.completion,
        success_status: status.success,
      })
      const next: SessionsTable = {
        ...session,
        completion_status: status.completion,
        success_status: status.success,
        score_scaled: status.score.scaled,
        score_raw: status.score.raw,
        score_min: status.score.min,
        score_max: status.score.max,
        progress_percent: status.progressPercent,
        updated_at: at,
        completed_at: session.completed_at ?? (reached ? at : null),
        ...(ended && {
          session_time: ended.duration ?? session.session_time,
          time_spent_seconds: Number(session.time_spent_seconds) + ended.seconds,
          suspended: ended.suspended && !reached ? 1 : 0,
        }),
      }
      const event = (type: string) =>
        recordAuditEvent(trx, scope, {
          type,
          entityType: 'session',
          entityId: session.id,
          severity: type === 'session.failed' ? 'warn' : 'info',
          data: sessionEventData(next),
          occurredAt: at,
        })
      if (reached && !session.completed_event_at) {
        next.completed_event_at = at
        await event('session.completed')
      }
      if (status.success === 'failed' && !session.failed_event_at) {
        next.failed_event_at = at
        await event('session.failed')
      }
      if (ended?.suspended && !reached) await event('session.suspended')
      await sessions.saveSessionProgress(trx, scope, next)
      await recordSessionResult(trx, scope, session, next)
    })
  }
}
