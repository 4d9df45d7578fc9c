/**
 * The fetch URL (cmi5 §8.2): each launch gets a one-time secret in its fetch URL, stored only
 * hashed; the first POST with it exchanges it for an `auth-token`, a Basic credential for that
 * launch only.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { isoNow } from '../../shared/clock.ts'
import { randomBase62 } from '../../shared/ids.ts'
import type { JsonObject } from '../lrs/xapi-primitives.ts'
import { findLaunchForFetch } from './cmi5.cross-tenant.repository.ts'
import * as repo from './cmi5.repository.ts'
import { LAUNCH_CREDENTIAL_TTL_MS } from './launch-url.ts'
import type { Cmi5Deps, LmsWriter } from './lms-writer.ts'
import { isUuid } from './registration.service.ts'

function hash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

/**
 * Whether `secret` is the one whose hash a launch keeps, in constant time. A Tin Can launch
 * has no fetch URL and keeps an empty hash, which no secret matches (and which
 * `timingSafeEqual` would refuse with a RangeError for its length).
 */
function secretMatches(secret: string, kept: string): boolean {
  const expected = Buffer.from(kept, 'hex')
  const given = Buffer.from(hash(secret), 'hex')
  return expected.length === given.length && timingSafeEqual(given, expected)
}

/** A new launch's fetch secret, and the hash its launch row keeps (`fetch_hash`). */
export function newFetchSecret(): { secret: string; hash: string } {
  const secret = randomBase62(32)
  return { secret, hash: hash(secret) }
}

/**
 * The first POST gets an `auth-token`; later ones get error-code 1, an ended session 2, an
 * unknown or wrong URL 3 — always with 200, as §8.2 asks.
 */
export async function fetchAuthToken(
  deps: Cmi5Deps,
  writer: LmsWriter,
  launchId: string,
  secret: string,
): Promise<JsonObject> {
  const { db, clock } = deps
  const launch = isUuid(launchId) ? await findLaunchForFetch(db, launchId) : undefined
  if (!launch || !secretMatches(secret, launch.fetch_hash)) {
    return { 'error-code': '3', 'error-text': 'Unknown fetch URL' }
  }
  if (launch.status === 'terminated' || launch.status === 'abandoned') {
    return { 'error-code': '2', 'error-text': 'The session has ended' }
  }
  const scope = { tenantId: launch.tenant_id, mode: launch.mode }
  if (!(await repo.claimFetch(db, scope, launch.id, isoNow(clock)))) {
    return { 'error-code': '1', 'error-text': 'The fetch URL has already been used' }
  }
  const credential = await writer.lrs.credentials.createForLaunch(scope, {
    launchId: launch.id,
    label: `cmi5 session ${launch.id}`,
    expiresAt: new Date(clock.now().getTime() + LAUNCH_CREDENTIAL_TTL_MS),
  })
  await repo.updateLaunch(db, scope, launch.id, { credential_id: credential.id })
  return { 'auth-token': credential.basicToken }
}
