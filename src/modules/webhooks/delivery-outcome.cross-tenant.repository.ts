import { sql } from 'kysely'
import type { Db } from '../../infra/db/database.ts'
import type { Executor } from '../../infra/db/schema.ts'
import type {
  DeliveryStatus,
  WebhookDeliveryAttemptsTable,
} from '../../infra/db/tables/webhooks.ts'
import { ASYNC_COMMIT, type ClaimedDelivery } from './delivery-claim.cross-tenant.repository.ts'
import { MAX_ATTEMPTS } from './delivery-policy.ts'

export interface AttemptOutcome {
  delivery: ClaimedDelivery
  status: Exclude<DeliveryStatus, 'queued'>
  nextAttemptAt: string | null
  /** When the attempt finished. */
  at: string
  statusCode: number | null
  error: string | null
  record: Omit<WebhookDeliveryAttemptsTable, 'delivery_id' | 'number' | 'tenant_id' | 'mode'>
}

/*
 * Cross-tenant by design: the sender records outcomes of deliveries it leased from every tenant
 * (delivery-claim.cross-tenant.repository.ts); each write presents the lease token, so only the
 * holder of a lease changes its delivery. No API request reaches these functions.
 */

/** Outcomes per statement: 8 parameters each, and SQLite allows 500 rows in one VALUES. */
const OUTCOME_CHUNK = 200

/**
 * Writes attempt outcomes in one transaction (one commit for the lot): each delivery's new state
 * only where its lease token still holds the lease — a result that arrives after the lease was
 * taken over is dropped — then the attempt records of those that held, plus one `interrupted`
 * record for a lost previous attempt when the claim took over an expired lease. Returns the ids
 * whose outcome was written.
 */
export async function recordOutcomes(
  db: Db,
  outcomes: readonly AttemptOutcome[],
): Promise<Set<string>> {
  const written = new Set<string>()
  if (outcomes.length === 0) return written
  await db.kysely.transaction().execute(async (trx) => {
    if (db.dialect === 'postgres') await sql`select ${ASYNC_COMMIT}`.execute(trx)
    for (let i = 0; i < outcomes.length; i += OUTCOME_CHUNK) {
      const chunk = outcomes.slice(i, i + OUTCOME_CHUNK)
      const values = chunk.map(
        (o) => sql`(${o.delivery.id}, ${o.delivery.leaseToken}, ${o.status}, ${o.nextAttemptAt},
          ${o.statusCode === null ? null : String(o.statusCode)}, ${o.error},
          ${o.status === 'delivered' ? o.at : null}, ${o.at})`,
      )
      const { rows } = await sql<{ id: string }>`
        with v(id, token, status, next_at, code, error, delivered_at, updated_at) as (
          values ${sql.join(values)}
        )
        update webhook_deliveries set
          status = v.status,
          next_attempt_at = coalesce(v.next_at, webhook_deliveries.next_attempt_at),
          lease_until = null,
          lease_token = null,
          interrupted = 0,
          last_status_code = cast(v.code as integer),
          last_error = v.error,
          delivered_at = v.delivered_at,
          updated_at = v.updated_at
        from v
        where webhook_deliveries.id = v.id and webhook_deliveries.lease_token = v.token
        returning webhook_deliveries.id`.execute(trx)
      for (const row of rows) written.add(row.id)
    }
    const records = attemptRecords(outcomes, written)
    for (let i = 0; i < records.length; i += OUTCOME_CHUNK) {
      await trx
        .insertInto('webhook_delivery_attempts')
        .values(records.slice(i, i + OUTCOME_CHUNK))
        .onConflict((oc) => oc.columns(['delivery_id', 'number']).doNothing())
        .execute()
    }
  })
  return written
}

/**
 * The attempt records of the outcomes that were written, each preceded by an `interrupted` record
 * for a lost previous attempt when its claim took over an expired lease.
 */
function attemptRecords(
  outcomes: readonly AttemptOutcome[],
  written: Set<string>,
): WebhookDeliveryAttemptsTable[] {
  const records: WebhookDeliveryAttemptsTable[] = []
  for (const o of outcomes) {
    const d = o.delivery
    if (!written.has(d.id)) continue
    const base = { delivery_id: d.id, tenant_id: d.tenantId, mode: d.mode }
    if (d.interrupted && d.number > 1) {
      records.push({
        ...base,
        number: d.number - 1,
        attempted_at: o.record.attempted_at,
        outcome: 'interrupted',
        status_code: null,
        latency_ms: null,
        error: 'the sender stopped before recording an outcome; the receiver may have got it',
        response_excerpt: null,
        response_truncated: 0,
      })
    }
    records.push({ ...base, number: d.number, ...o.record })
  }
  return records
}

/**
 * Gives a leased delivery back without counting the attempt (the sender is stopping, or found the
 * endpoint unable to take it yet); it is claimable again at once.
 */
export async function releaseDelivery(
  db: Executor,
  delivery: ClaimedDelivery,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      attempts: eb('attempts', '-', 1),
      total_attempts: eb('total_attempts', '-', 1),
      lease_until: null,
      lease_token: null,
      updated_at: now,
    }))
    .where('id', '=', delivery.id)
    .where('lease_token', '=', delivery.leaseToken)
    .executeTakeFirst()
  return result.numUpdatedRows === 1n
}

/** Dead-letters a leased delivery without an attempt (endpoint gone or its mode changed). */
export async function dropDelivery(
  db: Executor,
  delivery: ClaimedDelivery,
  now: string,
  reason: string,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status: 'dead_letter',
      attempts: eb('attempts', '-', 1),
      total_attempts: eb('total_attempts', '-', 1),
      lease_until: null,
      lease_token: null,
      interrupted: 0,
      last_error: reason,
      updated_at: now,
    }))
    .where('id', '=', delivery.id)
    .where('lease_token', '=', delivery.leaseToken)
    .executeTakeFirst()
  return result.numUpdatedRows === 1n
}

/**
 * Deliveries whose 5th attempt lost its sender can never be claimed again: dead-letter them
 * (they can be re-queued). Returns the count.
 */
export async function deadLetterLostFinalAttempts(db: Executor, now: Date): Promise<number> {
  const nowIso = now.toISOString()
  const result = await db
    .updateTable('webhook_deliveries')
    .set({
      status: 'dead_letter',
      lease_until: null,
      lease_token: null,
      interrupted: 0,
      last_error:
        'the 5th attempt was interrupted (the sender stopped before recording an outcome)',
      updated_at: nowIso,
    })
    .where('status', '=', 'queued')
    .where('lease_token', 'is not', null)
    .where('lease_until', '<=', nowIso)
    .where('attempts', '>=', MAX_ATTEMPTS)
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}
