import { type RawBuilder, sql } from 'kysely'
import type { Db } from '../../infra/db/database.ts'
import type { Executor } from '../../infra/db/schema.ts'
import { randomBase62 } from '../../shared/ids.ts'
import { MAX_ATTEMPTS } from './delivery-policy.ts'

/*
 * Cross-tenant by design: the delivery sender is one queue for every tenant and mode. It leases
 * due deliveries whoever owns them, and everything it later writes is addressed by the lease
 * token it got here (DESIGN §8). No API request reaches these functions.
 */

/** A delivery leased to one sender; every later write must present `leaseToken`. */
export interface ClaimedDelivery {
  id: string
  tenantId: string
  mode: 'live' | 'test'
  endpointId: string
  eventId: string
  eventType: string
  payload: string
  /** This attempt's number within the cycle (1-based, counted at the claim). */
  attempt: number
  /** This attempt's number over the delivery's life. */
  number: number
  leaseToken: string
  /** The previous attempt's sender vanished (its lease expired without an outcome). */
  interrupted: boolean
}

/**
 * PostgreSQL: commit this transaction without waiting for the WAL flush. A crash of the database
 * server may then forget the last few claims or outcomes — never half of one — and a forgotten
 * one only means the delivery is sent again with the same delivery_id, which at-least-once
 * delivery allows. That saves a disk flush per claim and per batch of outcomes.
 */
export const ASYNC_COMMIT = sql`set_config('synchronous_commit', 'off', true)`

/** Any key: it only has to be the same for every process sharing the database. */
const CLAIM_LOCK = 0x77686b

/** SQL for "delivery `alias` may be attempted at `now`" (due, not leased, attempts left). */
function claimable(alias: string, now: string): RawBuilder<boolean> {
  const t = sql.raw(alias)
  return sql<boolean>`${t}.status in ('queued', 'failed')
    and ${t}.next_attempt_at <= ${now}
    and (${t}.lease_until is null or ${t}.lease_until <= ${now})
    and ${t}.attempts < ${sql.lit(MAX_ATTEMPTS)}`
}

/**
 * SQL for the number of deliveries of endpoint `e.id` in flight at `now`, counted up to `cap`.
 * The LIMIT matters on PostgreSQL: leases churn, so this index holds many dead entries between
 * vacuums; a plain index scan (which the LIMIT gets) marks them dead as it passes, a bitmap scan
 * would visit them all again on every claim.
 */
function inFlight(now: string, cap: number): RawBuilder<number> {
  return sql<number>`(select count(*) from (select 1 as one from webhook_deliveries z
    where z.endpoint_id = e.id and z.lease_token is not null and z.lease_until > ${now}
    limit ${sql.lit(cap)}) f)`
}

/**
 * Leases up to `limit` due deliveries in ONE statement, never more than `perEndpoint` in flight
 * per endpoint counting every worker's leases: for each active endpoint it takes the first
 * `perEndpoint - inFlight` claimable deliveries (by `next_attempt_at`), and across endpoints the
 * first of each before the second of any, so one endpoint's backlog cannot crowd out the others.
 * Claiming moves `failed` to `queued` (the spec's "failed → queued, then attempted again") and
 * counts the attempt, so an attempt whose worker dies still counts.
 *
 * SQLite runs the statement under its write lock, which makes the count exact. PostgreSQL runs it
 * in a transaction holding an advisory lock, so its snapshot starts after the previous claimer
 * committed: claims are serialised (they are short), sending is not.
 *
 * Longer than most functions here because most of it is that one SQL statement, kept whole so its
 * CTEs read top to bottom.
 */
export async function claimDueDeliveries(
  db: Db,
  options: { now: Date; limit: number; perEndpoint: number; leaseSeconds: number },
): Promise<ClaimedDelivery[]> {
  const { limit, perEndpoint } = options
  if (limit < 1) return []
  const now = options.now.toISOString()
  const leaseUntil = new Date(options.now.getTime() + options.leaseSeconds * 1000).toISOString()
  const nonce = `${randomBase62(16)}:`
  const heads = Array.from(
    { length: perEndpoint },
    (_, k) => sql`select ep.id as endpoint_id, ${sql.lit(k)} as k,
      (select y.id from webhook_deliveries y where y.endpoint_id = ep.id and ${claimable('y', now)}
        order by y.next_attempt_at, y.id limit 1 offset ${sql.lit(k)}) as delivery_id
      from ep where ep.in_flight < ${sql.lit(perEndpoint - k)}`,
  )
  // PostgreSQL re-evaluates this on a row changed since the snapshot (a late outcome of an expired
  // lease), so such a row is not claimed again. SQLite runs the statement under its write lock, so
  // nothing changes underneath; there the extra terms would only steer the planner into scanning
  // every due delivery instead of the picked ones.
  const recheck =
    db.dialect === 'postgres' ? sql`and ${claimable('webhook_deliveries', now)}` : sql``
  const statement = sql<ClaimedRow>`with ep as (
      select e.id, ${inFlight(now, perEndpoint)} as in_flight from webhook_endpoints e
      where e.status = 'active' and exists (select 1 from webhook_deliveries p
        where p.endpoint_id = e.id and p.status in ('queued', 'failed') and p.next_attempt_at <= ${now})
    ),
    heads as (${sql.join(heads, sql` union all `)}),
    picked as (
      select h.delivery_id from heads h join webhook_deliveries d on d.id = h.delivery_id
      order by h.k, d.next_attempt_at, d.id limit ${limit}
    )
    update webhook_deliveries set
      status = 'queued',
      attempts = attempts + 1,
      total_attempts = total_attempts + 1,
      interrupted = case when lease_token is null then interrupted else 1 end,
      lease_until = ${leaseUntil},
      lease_token = ${nonce} || id,
      last_attempt_at = ${now},
      updated_at = ${now}
    where id in (select delivery_id from picked) ${recheck}
    returning id, tenant_id, mode, endpoint_id, event_id, event_type, payload, attempts,
      total_attempts, lease_token, interrupted`
  const run = async (executor: Executor) => (await statement.execute(executor)).rows
  const rows =
    db.dialect === 'postgres'
      ? await db.kysely.transaction().execute(async (trx) => {
          await sql`select ${ASYNC_COMMIT}, pg_advisory_xact_lock(${sql.lit(CLAIM_LOCK)})`.execute(
            trx,
          )
          return run(trx)
        })
      : await run(db.kysely)
  return rows.map(toClaimed)
}

function toClaimed(r: ClaimedRow): ClaimedDelivery {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    mode: r.mode,
    endpointId: r.endpoint_id,
    eventId: r.event_id,
    eventType: r.event_type,
    payload: r.payload,
    attempt: Number(r.attempts),
    number: Number(r.total_attempts),
    leaseToken: r.lease_token,
    interrupted: Number(r.interrupted) === 1,
  }
}

interface ClaimedRow {
  id: string
  tenant_id: string
  mode: 'live' | 'test'
  endpoint_id: string
  event_id: string
  event_type: string
  payload: string
  attempts: number
  total_attempts: number
  lease_token: string
  interrupted: number
}

/**
 * Whether some delivery could be claimed right now (due, endpoint active and below its cap);
 * with `dueBefore`, only one that has been due since then (so nobody is working on it).
 */
export async function anyClaimable(
  db: Executor,
  now: Date,
  perEndpoint: number,
  dueBefore: Date = now,
) {
  const nowIso = now.toISOString()
  const { rows } = await sql<{ one: number }>`select 1 as one from webhook_endpoints e
    where e.status = 'active' and ${inFlight(nowIso, perEndpoint)} < ${sql.lit(perEndpoint)}
      and exists (select 1 from webhook_deliveries y where y.endpoint_id = e.id
        and ${claimable('y', nowIso)} and y.next_attempt_at <= ${dueBefore.toISOString()})
    limit 1`.execute(db)
  return rows.length > 0
}

/**
 * When a sender should look again: the earliest future retry of an active endpoint, or the
 * earliest lease in flight running out (a slot frees by then, or a dead sender's work returns).
 * Undefined: nothing is waiting.
 */
export async function nextWakeAt(db: Executor, now: Date): Promise<Date | undefined> {
  const nowIso = now.toISOString()
  const retry = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select('d.next_attempt_at')
    .where('d.status', 'in', ['queued', 'failed'])
    .where('d.next_attempt_at', '>', nowIso)
    .where('d.lease_token', 'is', null)
    .where('e.status', '=', 'active')
    .orderBy('d.next_attempt_at')
    .limit(1)
    .executeTakeFirst()
  const lease = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('lease_until').as('until'))
    .where('lease_token', 'is not', null)
    .where('lease_until', '>', nowIso)
    .executeTakeFirst()
  const times = [retry?.next_attempt_at, lease?.until ?? undefined]
    .filter((t): t is string => typeof t === 'string')
    .map((t) => Date.parse(t))
  return times.length > 0 ? new Date(Math.min(...times)) : undefined
}
