/**
 * SSRF-safe outbound HTTP (DESIGN §8): webhook deliveries and quick-publish image fetches.
 * HTTPS only by default; every resolved address checked and the socket pinned to it; certificate
 * verification always on; redirects never followed; total timeout and body cap per request.
 */
export type { BlockReason } from './address.policy.ts'
export { AddressAllowlist, blockReason } from './address.policy.ts'
export type {
  EgressMethod,
  EgressRequest,
  EgressResponse,
  HttpEgressClient,
  HttpEgressClientOptions,
} from './egress.client.ts'
export { createHttpEgressClient } from './egress.client.ts'
export type { EgressErrorCode } from './egress.error.ts'
export { HttpEgressError, isHttpEgressError } from './egress.error.ts'
export type {
  EgressPolicy,
  EgressPolicyOptions,
  RegistrationCheck,
  ResolvedAddress,
  Resolver,
} from './url.guard.ts'
export { buildPolicy, checkUrlForRegistration } from './url.guard.ts'
