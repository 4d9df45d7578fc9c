import type { SessionsTable } from '../../infra/db/tables/sessions.ts'
import { AppError } from '../../shared/app-error.ts'
import {
  audienceMatches,
  contentOriginsOf,
  tenantContentOrigin,
  tokenAudience,
} from '../../shared/content-origin.ts'
import { signToken, verifyToken } from '../../shared/signed-token.ts'
import type { Cmi5Structure } from '../scorm/manifest/manifest.types.ts'
import * as sessions from '../sessions/session.cross-tenant.repository.ts'
import * as repo from './cmi5.repository.ts'
import type { Cmi5Deps } from './lms-writer.ts'
import { auSatisfied, emptyProgress, type RegistrationState } from './move-on.ts'

/** One line of the course menu. */
export interface MenuEntry {
  index: number
  title: string
  /** Block titles from the course down to the AU's block. */
  path: string[]
  satisfied: boolean
}

/** The signed URL of a session's course menu on the tenant's content origin. */
export function menuUrl(deps: Cmi5Deps, session: SessionsTable, expiresAt: Date): string {
  const origins = contentOriginsOf(deps.config)
  const aud = tokenAudience(origins, session.tenant_id)
  const token = signToken(deps.config.secretKey, 'launch', { sid: session.id, aud }, expiresAt)
  const origin = tenantContentOrigin(origins, session.tenant_id)
  return `${origin}/cmi5/menu/${session.id}?token=${encodeURIComponent(token)}`
}

/** The session a menu token opens, checked like a launch token (purpose, expiry, origin). */
export async function menuSession(
  deps: Cmi5Deps,
  sessionId: string,
  token: string,
  host: string | undefined,
): Promise<SessionsTable> {
  const result = verifyToken<{ sid: string; aud?: unknown }>(
    deps.config.secretKey,
    'launch',
    token,
    deps.clock.now(),
  )
  const valid =
    result.ok &&
    result.claims.sid === sessionId &&
    audienceMatches(contentOriginsOf(deps.config), result.claims.aud, host)
  if (!valid) throw new AppError('forbidden', 'This course menu link is not valid (or has expired)')
  const session = await sessions.findSessionForRuntime(deps.db, sessionId)
  if (!session) throw new AppError('session_not_found', `No session ${sessionId}`)
  return session
}

/** The AUs in course order with their blocks and whether the learner has satisfied them. */
export async function menuEntries(
  deps: Cmi5Deps,
  session: SessionsTable,
  structure: Cmi5Structure,
): Promise<MenuEntry[]> {
  const scope = { tenantId: session.tenant_id, mode: session.mode }
  const reg = await repo.findRegistrationOfSession(deps.db, scope, session.id)
  const state = reg ? (JSON.parse(reg.state) as RegistrationState) : null
  const parentOf = new Map<string, string>()
  for (const block of structure.blocks) {
    for (const child of block.children) parentOf.set(child, block.id)
  }
  const titles = new Map(structure.blocks.map((b) => [b.id, b.title]))
  return structure.aus.map((au, index) => {
    const path: string[] = []
    for (let at = au.blockId; at !== null && at !== undefined; at = parentOf.get(at) ?? null) {
      path.unshift(titles.get(at) ?? at)
    }
    const progress = state?.aus[String(index)] ?? emptyProgress()
    return { index, title: au.title, path, satisfied: state !== null && auSatisfied(au, progress) }
  })
}
