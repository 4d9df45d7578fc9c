import type { LrsCredential } from './credential.service.ts'
import type { JsonObject } from './xapi-primitives.ts'

/** What the guard sees of an /xapi request made with a launch credential. */
export interface GuardedRequest {
  method: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE'
  /** `statements`, `activities/state`, `agents/profile`… */
  resource: string
  params: Readonly<Record<string, string>>
  contentType: string | undefined
  body: Buffer
}

/**
 * Rules for requests made with a credential issued to one cmi5 or Tin Can launch
 * (`LrsCredential.launchId`): the LRS asks before it acts and tells after statements are stored.
 * The LRS owns no course knowledge; modules/cmi5 implements this. `check` throws an AppError
 * (`forbidden` for the cmi5 rules, whose spec answer is 403) to refuse the request.
 */
export interface LrsLaunchGuard {
  check(credential: LrsCredential, request: GuardedRequest): Promise<void>
  /** The statements a launch credential just stored (committed), in request order. */
  stored(credential: LrsCredential, statements: JsonObject[]): Promise<void>
}
