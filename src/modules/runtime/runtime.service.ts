import { type Kysely, PostgresAdapter } from 'kysely'
import type { Config } from '../../config.ts'
import type { TransactionRunner } from '../../infra/db/group-commit.ts'
import type { Database } from '../../infra/db/schema.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Clock } from '../../shared/clock.ts'
import { audienceMatches, contentOriginsOf, tokenAudience } from '../../shared/content-origin.ts'
import { signToken, type TokenPurpose, verifyToken } from '../../shared/signed-token.ts'
import type { Delta } from '../scorm/data-model/index.ts'
import { createTrackingState, uiState } from '../scorm/sequencing/index.ts'
import { playedOrganization } from '../sessions/course-items.ts'
import { scopeOfSession } from '../sessions/session.mapper.ts'
import { readGlobals, storedState } from './attempt-sequencing.ts'
import { inReview } from './delivery-launch.ts'
import { NavigationService } from './navigation.service.ts'
import type { NavigationInput } from './navigation-input.ts'
import { findScoStates } from './runtime.repository.ts'
import { RuntimeCommits } from './runtime-commits.ts'
import { RuntimeLoader } from './runtime-loader.ts'
import { parseRefused } from './runtime-warnings.ts'

/** Content and runtime tokens outlive any reasonable sitting (12 h). */
const TOKEN_TTL_MS = 12 * 3600 * 1000

export interface RuntimeServiceDeps {
  db: Kysely<Database>
  /** Runs commits' writes (group commit on SQLite). */
  commits: TransactionRunner
  clock: Clock
  config: Config
}

function isDelta(value: unknown): value is Delta {
  if (typeof value !== 'object' || value === null) return false
  const d = value as Record<string, unknown>
  return (
    Number.isSafeInteger(d.seq) &&
    (d.seq as number) >= 1 &&
    Number.isSafeInteger(d.fromSeq) &&
    (d.fromSeq as number) >= 0 &&
    typeof d.values === 'object' &&
    d.values !== null &&
    !Array.isArray(d.values) &&
    (d.final === undefined || typeof d.final === 'boolean')
  )
}

/**
 * The server side of the player (docs/runtime-protocol.md): checks every call's signed token,
 * then exchanges a launch token for content and runtime tokens (`start`), starts SCO deliveries
 * and runs navigation requests (NavigationService) and applies commits (RuntimeCommits).
 */
export class RuntimeService {
  readonly #deps: RuntimeServiceDeps
  readonly #loader: RuntimeLoader
  readonly #navigation: NavigationService
  readonly #commits: RuntimeCommits

  constructor(deps: RuntimeServiceDeps) {
    this.#deps = deps
    this.#loader = new RuntimeLoader(deps.clock)
    this.#navigation = new NavigationService({
      db: deps.db,
      clock: deps.clock,
      loader: this.#loader,
    })
    this.#commits = new RuntimeCommits({
      runner: deps.commits,
      ...(deps.db.getExecutor().adapter instanceof PostgresAdapter && { oneStatement: deps.db }),
      clock: deps.clock,
      load: (db, sessionId) => this.#loader.load(db, sessionId),
      options: (db, session) => this.#loader.options(db, session),
    })
  }

  /**
   * `host` is the request's Host: a token is valid only on the content origin of the tenant it
   * was made for (docs/content-origins.md), so another tenant's page cannot use it.
   */
  #verify(purpose: TokenPurpose, token: string | undefined, sessionId: string, host?: string) {
    const { config } = this.#deps
    const result = verifyToken<{ sid: string; aud?: unknown }>(
      config.secretKey,
      purpose,
      token ?? '',
      this.#deps.clock.now(),
    )
    const onHost = result.ok && audienceMatches(contentOriginsOf(config), result.claims.aud, host)
    if (!result.ok || result.claims.sid !== sessionId || !onHost) {
      const why = !result.ok
        ? result.reason === 'expired'
          ? 'has expired'
          : 'is not valid'
        : result.claims.sid !== sessionId
          ? 'is for another session'
          : 'is not valid on this address'
      throw new AppError('unauthorized', `This ${purpose} link ${why}`)
    }
  }

  /** The player's first call: the course's items with their status, and the session's tokens. */
  async start(sessionId: string, launchToken: string | undefined, host?: string) {
    this.#verify('launch', launchToken, sessionId, host)
    const { db, config, clock } = this.#deps
    const { session, version, items, manifest, blobPrefix, options, sequencing } =
      await this.#loader.load(db, sessionId)
    const review = inReview({ session, sequencing })
    const expires = new Date(clock.now().getTime() + TOKEN_TTL_MS)
    const aud = tokenAudience(contentOriginsOf(config), session.tenant_id)
    const content = { p: blobPrefix, sid: session.id, aud }
    const contentToken = signToken(config.secretKey, 'content', content, expires)
    const firstLaunchable = items.find((i) => i.launchable)
    // Each item's stored status, for the contents' marks and 1.2 prerequisites.
    const rows = await findScoStates(db, scopeOfSession(session), session.id)
    const states = new Map(rows.map((s) => [s.item_id, s]))
    // Only explicit controlMode values: SCORM 2004's default flow="false" would take Continue
    // away from every course without sequencing, which the player has never done.
    const controlMode = playedOrganization(manifest)?.sequencing?.controlMode
    return {
      session_id: session.id,
      attempt_id: `${session.id}:${session.attempt_number}`,
      runtime_token: signToken(config.secretKey, 'runtime', { sid: session.id, aud }, expires),
      title: manifest.title,
      content_type: manifest.contentType,
      scorm_version: manifest.scormVersion ? version : null,
      content_base: `/c/${contentToken}/`,
      items: items.map(({ manifestItem, ...item }) => {
        const state = states.get(item.id)
        return state
          ? {
              ...item,
              completion_status: state.completion_status,
              success_status: state.success_status,
            }
          : item
      }),
      navigation: { flow: controlMode?.flow !== false, choice: controlMode?.choice !== false },
      current_item_id: session.current_item_id ?? firstLaunchable?.id ?? null,
      /** 'review' when the attempt is finished: it can be read, not changed. */
      mode: review ? 'review' : 'normal',
      data_model_options: options,
      // SCORM 2004 with a sequencer: the controls and table of contents before the first
      // navigation request, so the player can draw them at once.
      ...(sequencing &&
        !review && {
          ui: uiState(sequencing.tree, storedState(session) ?? createTrackingState(), {
            globals: await readGlobals(db, session, sequencing),
          }),
        }),
    }
  }

  /**
   * Starts one launch of an item (NavigationService.deliver): any item without a sequencer, the
   * Current Activity (or an item the sequencer lets the learner choose) with one.
   */
  async createDelivery(
    sessionId: string,
    runtimeToken: string | undefined,
    itemId: string,
    host?: string,
  ) {
    this.#verify('runtime', runtimeToken, sessionId, host)
    return this.#navigation.deliver(sessionId, itemId)
  }

  /** One navigation request (docs/runtime-protocol.md §6). */
  async navigate(
    sessionId: string,
    runtimeToken: string | undefined,
    input: NavigationInput,
    host?: string,
  ) {
    this.#verify('runtime', runtimeToken, sessionId, host)
    return this.#navigation.navigate(sessionId, input)
  }

  /** Applies one delta; see docs/runtime-protocol.md for the answers. */
  async commit(
    sessionId: string,
    runtimeToken: string | undefined,
    body: { delivery_id?: unknown; delta?: unknown; refused?: unknown },
    host?: string,
  ) {
    this.#verify('runtime', runtimeToken, sessionId, host)
    const delta = body.delta
    if (typeof body.delivery_id !== 'string' || !isDelta(delta)) {
      throw new AppError(
        'invalid_request',
        'A commit needs delivery_id and a delta {seq, fromSeq, values, final}',
      )
    }
    return this.#commits.commit(sessionId, {
      deliveryId: body.delivery_id,
      delta,
      refused: parseRefused(body.refused),
    })
  }
}
