import type { Kysely } from 'kysely'
import type { Database, Mode } from '../../infra/db/schema.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Clock } from '../../shared/clock.ts'
import {
  deliveriesAfter,
  readCursor,
  sessionEventsAfter,
  tenantsWithScormStatements,
  writeCursor,
} from './scorm-sources.cross-tenant.repository.ts'
import { type ScormFact, scormStatement } from './scorm-statements.builder.ts'
import type { LrsCaller, StatementService } from './statement.service.ts'
import type { JsonObject } from './xapi-primitives.ts'

export interface ScormStatementOptions {
  /** The LRS's account home page for learners and the base of activity ids (PUBLIC_URL). */
  publicUrl: string
  /** Rows read per step (default 500). */
  batchSize?: number
  /**
   * Rows younger than this are left for the next run (default 5 s): a transaction that took its
   * sequence number or timestamp earlier may still be committing, and a cursor must not pass it.
   */
  settleSeconds?: number
}

export interface ScormStatementRun {
  /** Statements handed to the LRS (re-sent ones included; the LRS stores each id once). */
  statements: number
  /** Statements the LRS refused (logged by the caller; the cursor moves past them). */
  refused: number
}

const EVENTS_CURSOR = 'scorm.audit_events'
const DELIVERIES_CURSOR = 'scorm.sco_deliveries'
const EVENT_TYPES = ['session.completed', 'session.failed', 'session.suspended']

interface ScoreData {
  scaled: number | null
  raw: number | null
  min: number | null
  max: number | null
}

/**
 * Turns what SCORM sessions already recorded into xAPI statements, after the fact: the
 * `sco_deliveries` rows (a launch: `launched`, `initialized`, `resumed` when it resumed a
 * suspended attempt, `terminated` with its duration when it ended) and the session audit events
 * (`completed`, `passed`, `failed` with the score, `suspended`). Two cursors (an audit event
 * seq, a delivery's updated_at and id) say what was read; ids are UUID v5 of the source and the
 * verb, so a re-run or two workers at once store every statement once. Tenants whose settings
 * say `scormStatements: false` get none (the cursor still moves on).
 */
export class ScormStatementWriter {
  readonly #db: Kysely<Database>
  readonly #clock: Clock
  readonly #statements: StatementService
  readonly #publicUrl: string
  readonly #batch: number
  readonly #settleMs: number

  constructor(
    db: Kysely<Database>,
    clock: Clock,
    statements: StatementService,
    options: ScormStatementOptions,
  ) {
    this.#db = db
    this.#clock = clock
    this.#statements = statements
    this.#publicUrl = options.publicUrl.replace(/\/+$/, '')
    this.#batch = options.batchSize ?? 500
    this.#settleMs = (options.settleSeconds ?? 5) * 1000
  }

  /** Reads until both cursors have caught up with settled rows. */
  async run(): Promise<ScormStatementRun> {
    const total: ScormStatementRun = { statements: 0, refused: 0 }
    const until = new Date(this.#clock.now().getTime() - this.#settleMs).toISOString()
    for (;;) {
      const a = await this.#eventsStep(until)
      const b = await this.#deliveriesStep(until)
      total.statements += a.statements + b.statements
      total.refused += a.refused + b.refused
      if (!a.more && !b.more) return total
    }
  }

  async #eventsStep(until: string) {
    const after = Number((await readCursor(this.#db, EVENTS_CURSOR)) ?? '0')
    const read = await sessionEventsAfter(this.#db, after, EVENT_TYPES, this.#batch)
    // Seqs and times need not agree: stop at the first unsettled event, never skip past it.
    const unsettled = read.findIndex((r) => r.occurred_at > until)
    const rows = unsettled === -1 ? read : read.slice(0, unsettled)
    const facts: Keyed[] = []
    for (const row of rows) {
      if (row.scorm_version === null) continue
      const data = JSON.parse(row.data) as { success_status?: string; score?: ScoreData }
      const base = {
        sourceId: row.id,
        at: row.occurred_at,
        sessionId: row.session_id,
        learnerId: row.learner_id,
        packageId: row.package_id,
        itemId: null,
        ...(data.score && { score: data.score }),
      }
      const key = { tenantId: row.tenant_id, mode: row.mode }
      if (row.type === 'session.completed') {
        facts.push({ ...key, fact: { ...base, verb: 'completed' } })
        if (data.success_status === 'passed')
          facts.push({ ...key, fact: { ...base, verb: 'passed' } })
      } else if (row.type === 'session.failed') {
        facts.push({ ...key, fact: { ...base, verb: 'failed' } })
      } else {
        facts.push({ ...key, fact: { ...base, verb: 'suspended' } })
      }
    }
    const done = await this.#store(facts)
    const last = rows.at(-1)
    if (last) await writeCursor(this.#db, EVENTS_CURSOR, String(last.seq), this.#clock)
    return { ...done, more: unsettled === -1 && read.length === this.#batch }
  }

  async #deliveriesStep(until: string) {
    const raw = await readCursor(this.#db, DELIVERIES_CURSOR)
    const after = raw ? (JSON.parse(raw) as { at: string; id: string }) : null
    const rows = await deliveriesAfter(this.#db, after, until, this.#batch)
    const facts: Keyed[] = []
    for (const row of rows) {
      if (row.scorm_version === null) continue
      const key = { tenantId: row.tenant_id, mode: row.mode }
      const base = {
        sourceId: row.id,
        sessionId: row.session_id,
        learnerId: row.learner_id,
        packageId: row.package_id,
        itemId: row.item_id,
        at: row.created_at,
      }
      facts.push({ ...key, fact: { ...base, verb: 'launched' } })
      facts.push({ ...key, fact: { ...base, verb: 'initialized' } })
      const entry = (JSON.parse(row.launch_data) as { entry?: string }).entry
      if (entry === 'resume') facts.push({ ...key, fact: { ...base, verb: 'resumed' } })
      if (row.ended_at !== null) {
        const seconds = (Date.parse(row.ended_at) - Date.parse(row.created_at)) / 1000
        facts.push({
          ...key,
          fact: { ...base, verb: 'terminated', at: row.ended_at, durationSeconds: seconds },
        })
      }
    }
    const done = await this.#store(facts)
    const last = rows.at(-1)
    if (last) {
      const position = JSON.stringify({ at: last.updated_at, id: last.id })
      await writeCursor(this.#db, DELIVERIES_CURSOR, position, this.#clock)
    }
    return { ...done, more: rows.length === this.#batch }
  }

  /** Stores the facts per tenant and mode, one batch each; a refused batch goes one by one. */
  async #store(facts: Keyed[]): Promise<ScormStatementRun> {
    const out: ScormStatementRun = { statements: 0, refused: 0 }
    if (facts.length === 0) return out
    const enabled = await tenantsWithScormStatements(this.#db, [
      ...new Set(facts.map((f) => f.tenantId)),
    ])
    const groups = new Map<string, { caller: LrsCaller; statements: JsonObject[] }>()
    for (const { tenantId, mode, fact } of facts) {
      if (!enabled.has(tenantId)) continue
      const name = `${tenantId}\u0000${mode}`
      let group = groups.get(name)
      if (!group) {
        group = {
          caller: { tenantId, mode, credentialId: null, authority: this.#authority() },
          statements: [],
        }
        groups.set(name, group)
      }
      group.statements.push(scormStatement(fact, this.#publicUrl))
    }
    for (const { caller, statements } of groups.values()) {
      try {
        await this.#statements.store(caller, { statements, parts: [], version: '1.0.3' })
        out.statements += statements.length
      } catch (err) {
        if (!(err instanceof AppError)) throw err
        for (const statement of statements) {
          try {
            await this.#statements.store(caller, {
              statements: [statement],
              parts: [],
              version: '1.0.3',
            })
            out.statements += 1
          } catch (one) {
            if (!(one instanceof AppError)) throw one
            out.refused += 1
          }
        }
      }
    }
    return out
  }

  #authority(): JsonObject {
    return {
      objectType: 'Agent',
      name: 'Courseport',
      account: { homePage: this.#publicUrl, name: 'courseport' },
    }
  }
}

interface Keyed {
  tenantId: string
  mode: Mode
  fact: ScormFact
}
