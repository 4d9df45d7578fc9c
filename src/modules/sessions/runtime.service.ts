import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import type { TransactionRunner } from '../../infra/db/group-commit.ts'
import type { Database, Executor } from '../../infra/db/schema.ts'
import type { ScoStatesTable, SessionsTable } from '../../infra/db/tables/sessions.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Clock } from '../../shared/clock.ts'
import { audienceMatches, contentOriginsOf, tokenAudience } from '../../shared/content-origin.ts'
import { newId } from '../../shared/ids.ts'
import { signToken, type TokenPurpose, verifyToken } from '../../shared/signed-token.ts'
import { findRuntimeOptions } from '../packages/package.repository.ts'
import type { StoredManifest } from '../packages/package-ingest.ts'
import {
  carried,
  type DataModelOptions,
  DEFAULT_MAX_TOTAL_CHARS,
  type Delta,
  initialValues,
  type LaunchData,
} from '../scorm/data-model/index.ts'
import { createTrackingState, launchObjectives } from '../scorm/sequencing/index.ts'
import { findTenant } from '../tenants/tenant.repository.ts'
import { type CourseItem, courseItems, playedOrganization, trackedItems } from './course-items.ts'
import {
  attemptChars,
  finishDelivery,
  lastAppliedSeq,
  launchRecordUpdate,
  launchValues,
  recordOf,
  valuesChars,
} from './delivery-record.ts'
import { buildLaunchData } from './launch-data.builder.ts'
import { RuntimeCommits } from './runtime-commits.ts'
import { parseRefused } from './runtime-warnings.ts'
import * as repo from './session.repository.ts'
import { mergeScoStatus, statusOfRow, updateSessionProgress } from './session-progress.ts'
import { readGlobals, type Sequencing, sequencingOf, storedState } from './session-sequencing.ts'
import { isFinished, scoStatus } from './session-status.ts'
import { readSharedData, sharedDataScope } from './shared-data.ts'

/** Content and runtime tokens outlive any reasonable sitting (12 h). */
const TOKEN_TTL_MS = 12 * 3600 * 1000

export interface RuntimeServiceDeps {
  db: Kysely<Database>
  /** Runs commits' writes (group commit on SQLite). */
  commits: TransactionRunner
  clock: Clock
  config: Config
}

export interface Loaded {
  session: SessionsTable
  version: '1.2' | '2004'
  items: CourseItem[]
  trackedCount: number
  manifest: StoredManifest
  blobPrefix: string
  options: DataModelOptions
  /** SCORM 2004: the version's activity tree (session-sequencing.ts); null otherwise. */
  sequencing: Sequencing | null
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
 * The server side of the player (docs/runtime-protocol.md): exchanges a launch token for
 * content and runtime tokens, starts SCO deliveries with their launch data, and applies
 * commits — re-validated by the same data model the player runs, idempotent by sequence.
 */
interface VersionInfo {
  version: '1.2' | '2004'
  items: CourseItem[]
  trackedCount: number
  manifest: StoredManifest
  blobPrefix: string
  sequencing: Sequencing | null
}

/** Versions never change once stored, so their parsed manifests are kept (bounded). */
const VERSION_CACHE_SIZE = 200
/** Tenant settings and package runtime options are re-read at most this often. */
const SETTINGS_TTL_MS = 30_000

/**
 * A finished attempt (completed or passed, or replaced by a newer attempt) is history: its
 * launch URL reopens it in review mode, and nothing a review launch does is stored.
 */
function inReview(session: SessionsTable): boolean {
  return session.open === 0 || isFinished(session)
}

export class RuntimeService {
  readonly #deps: RuntimeServiceDeps
  readonly #versions = new Map<string, VersionInfo>()
  readonly #settings = new Map<string, { options: DataModelOptions; until: number }>()
  readonly #packageOptions = new Map<string, { options: DataModelOptions; until: number }>()
  readonly #commits: RuntimeCommits
  constructor(deps: RuntimeServiceDeps) {
    this.#deps = deps
    this.#commits = new RuntimeCommits({
      runner: deps.commits,
      clock: deps.clock,
      load: (db, sessionId) => this.#load(db, sessionId),
      options: (db, session) => this.#options(db, session),
    })
  }

  async #versionInfo(db: Executor, versionId: string): Promise<VersionInfo> {
    const cached = this.#versions.get(versionId)
    if (cached) return cached
    const row = await db
      .selectFrom('package_versions')
      .select(['manifest', 'blob_prefix', 'scorm_version'])
      .where('id', '=', versionId)
      .executeTakeFirstOrThrow()
    const manifest = JSON.parse(row.manifest) as StoredManifest
    const items = courseItems(manifest)
    const version = row.scorm_version ?? '2004'
    const info: VersionInfo = {
      version,
      items,
      trackedCount: trackedItems(items).length,
      manifest,
      blobPrefix: row.blob_prefix,
      sequencing: sequencingOf(versionId, version, manifest),
    }
    if (this.#versions.size >= VERSION_CACHE_SIZE) this.#versions.clear()
    this.#versions.set(versionId, info)
    return info
  }

  /**
   * A session's data-model options: its tenant's (a tenant may allow 64 000 characters of 1.2
   * suspend data) and its package's runtime options (`lenient_identifiers`). Both are cached for
   * SETTINGS_TTL_MS, so a change reaches running launches within 30 s.
   */
  async #options(db: Executor, session: SessionsTable): Promise<DataModelOptions> {
    const now = this.#deps.clock.now().getTime()
    let tenant = this.#settings.get(session.tenant_id)
    if (!tenant || tenant.until <= now) {
      const row = await findTenant(db, session.tenant_id)
      const settings = JSON.parse(row?.settings ?? '{}') as { suspendDataLimit12?: number }
      const options = settings.suspendDataLimit12
        ? { suspendDataLimit12: settings.suspendDataLimit12 }
        : {}
      tenant = { options, until: now + SETTINGS_TTL_MS }
      this.#settings.set(session.tenant_id, tenant)
    }
    let pkg = this.#packageOptions.get(session.package_id)
    if (!pkg || pkg.until <= now) {
      const stored = JSON.parse(await findRuntimeOptions(db, session.package_id)) as {
        lenient_identifiers?: boolean
      }
      const options = stored.lenient_identifiers ? { lenientIdentifiers: true } : {}
      if (this.#packageOptions.size >= VERSION_CACHE_SIZE * 10) this.#packageOptions.clear()
      pkg = { options, until: now + SETTINGS_TTL_MS }
      this.#packageOptions.set(session.package_id, pkg)
    }
    return { ...tenant.options, ...pkg.options }
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

  async #load(db: Executor, sessionId: string): Promise<Loaded> {
    const session = await repo.findSessionForRuntime(db, sessionId)
    if (!session) throw new AppError('session_not_found', `No session ${sessionId}`)
    const info = await this.#versionInfo(db, session.version_id)
    return { session, ...info, options: await this.#options(db, session) }
  }

  async start(sessionId: string, launchToken: string | undefined, host?: string) {
    this.#verify('launch', launchToken, sessionId, host)
    const { session, version, items, manifest, blobPrefix, options } = await this.#load(
      this.#deps.db,
      sessionId,
    )
    const expires = new Date(this.#deps.clock.now().getTime() + TOKEN_TTL_MS)
    const { secretKey } = this.#deps.config
    const aud = tokenAudience(contentOriginsOf(this.#deps.config), session.tenant_id)
    const contentToken = signToken(
      secretKey,
      'content',
      { p: blobPrefix, sid: session.id, aud },
      expires,
    )
    const firstLaunchable = items.find((i) => i.launchable)
    // Each item's stored status, for the contents' marks and 1.2 prerequisites.
    const states = new Map(
      (await repo.findScoStates(this.#deps.db, session.id)).map((s) => [s.item_id, s]),
    )
    // Only explicit controlMode values: SCORM 2004's default flow="false" would take Continue
    // away from every course without sequencing, which the player has never done.
    const controlMode = playedOrganization(manifest)?.sequencing?.controlMode
    return {
      session_id: session.id,
      attempt_id: `${session.id}:${session.attempt_number}`,
      runtime_token: signToken(secretKey, 'runtime', { sid: session.id, aud }, expires),
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
      mode: inReview(session) ? 'review' : 'normal',
      data_model_options: options,
    }
  }

  /**
   * Starts one launch of an item; a launch left open (tab closed, no Terminate) is ended first.
   * In a finished attempt the launch is a review: the SCO reads what was recorded and nothing it
   * does is stored.
   */
  async createDelivery(
    sessionId: string,
    runtimeToken: string | undefined,
    itemId: string,
    host?: string,
  ) {
    this.#verify('runtime', runtimeToken, sessionId, host)
    const at = this.#deps.clock.now().toISOString()
    return this.#deps.db.transaction().execute(async (trx) => {
      const loaded = await this.#load(trx, sessionId)
      const item = loaded.items.find((i) => i.id === itemId && i.launchable)
      if (!item?.href)
        throw new AppError('not_found', `No launchable item ${itemId} in this course`)
      await this.#endOpenDeliveries(trx, loaded, at)
      const states = await repo.findScoStates(trx, sessionId)
      const previous = states.find((s) => s.item_id === itemId)
      const rows = await repo.findScoValues(trx, sessionId, itemId)
      const review = inReview(loaded.session)
      const launchData = review
        ? reviewLaunchData(loaded, previous, recordOf(rows))
        : await this.#launchData(trx, loaded, item, previous)
      const deliveryId = newId('scd')
      await repo.insertDelivery(trx, {
        id: deliveryId,
        session_id: sessionId,
        item_id: itemId,
        tenant_id: loaded.session.tenant_id,
        mode: loaded.session.mode,
        launch_data: JSON.stringify(launchData),
        last_seq: 0,
        ended_at: null,
        created_at: at,
        updated_at: at,
      })
      const initial = initialValues(loaded.version, launchData)
      if (!review) await this.#openOnScoRow(trx, loaded, item.id, deliveryId, initial, at)
      const limit = loaded.options.maxTotalChars ?? DEFAULT_MAX_TOTAL_CHARS
      return {
        delivery_id: deliveryId,
        item_id: itemId,
        scorm_version: loaded.version,
        href: item.href,
        launch_data: launchData,
        data_model_options: {
          ...loaded.options,
          // What the attempt has left of its runtime-data limit, beyond what the SCO starts with.
          maxTotalChars: valuesChars(initial) + Math.max(0, limit - attemptChars(states)),
        },
      }
    })
  }

  /** Ends every open launch of the session; a normal one is finished with its committed data. */
  async #endOpenDeliveries(trx: Executor, loaded: Loaded, at: string): Promise<void> {
    for (const open of await repo.openDeliveries(trx, loaded.session.id)) {
      const launchData = JSON.parse(open.launch_data) as LaunchData
      const current = await repo.findScoStates(trx, loaded.session.id)
      const row = current.find((s) => s.item_id === open.item_id)
      await repo.endDelivery(trx, open.id, lastAppliedSeq(open, row), at)
      if (launchData.mode === 'review' || row?.delivery_id !== open.id) continue
      const rows = await repo.findScoValues(trx, loaded.session.id, open.item_id)
      const values = launchValues(loaded.version, launchData, rows, open.id)
      const launch = { deliveryId: open.id, values, record: recordOf(rows) }
      const ended = await finishDelivery(trx, loaded, current, open.item_id, at, launch)
      if (ended) loaded.session = ended
    }
  }

  async #launchData(
    trx: Executor,
    loaded: Loaded,
    item: CourseItem,
    previous: ScoStatesTable | undefined,
  ): Promise<LaunchData> {
    const sharedStores = await readSharedData(
      trx,
      loaded.session,
      sharedDataScope(loaded.manifest, loaded.session),
      loaded.version === '2004' ? (item.manifestItem?.sharedData ?? []).map((d) => d.targetID) : [],
    )
    return buildLaunchData({
      sharedStores,
      objectiveValues: await this.#objectiveValues(trx, loaded, item.id),
      version: loaded.version,
      learnerId: loaded.session.learner_id,
      learnerName: loaded.session.learner_name,
      item: item.manifestItem,
      previous: previous
        ? {
            suspended: previous.suspended === 1,
            totalTime: previous.total_time,
            carry: JSON.parse(previous.carry) as Record<string, string>,
          }
        : null,
      launchedBefore: (await repo.countDeliveries(trx, loaded.session.id, item.id)) > 0,
    })
  }

  /**
   * SCORM 2004: each objective's values as the activity's tracking state and its read maps
   * give them (global objectives another SCO or course wrote), for `cmi.objectives.n`.
   */
  async #objectiveValues(
    trx: Executor,
    loaded: Loaded,
    itemId: string,
  ): Promise<Map<string, Record<string, string>>> {
    const seq = loaded.sequencing
    if (!seq) return new Map()
    const state = storedState(loaded.session) ?? createTrackingState()
    const globals = await readGlobals(trx, loaded.session, seq)
    const objectives = launchObjectives(seq.tree, state, itemId, { globals })
    return new Map(objectives.map((o) => [o.id, o.values]))
  }

  /**
   * Names the new launch on the SCO's row (its compare-and-set position) and adds the launch's
   * LMS-supplied values the record does not hold yet; recorded values are never replaced.
   */
  async #openOnScoRow(
    trx: Executor,
    loaded: Loaded,
    itemId: string,
    deliveryId: string,
    initial: Record<string, string>,
    at: string,
  ): Promise<void> {
    const sessionId = loaded.session.id
    const states = await repo.findScoStates(trx, sessionId)
    const previous = states.find((s) => s.item_id === itemId)
    const record = recordOf(await repo.findScoValues(trx, sessionId, itemId))
    const { missing, refreshed, chars } = launchRecordUpdate(record, initial)
    const status = previous ? statusOfRow(previous) : null
    const launched = mergeScoStatus(status, scoStatus(loaded.version, {}, true))
    await repo.upsertScoState(trx, {
      session_id: sessionId,
      item_id: itemId,
      tenant_id: loaded.session.tenant_id,
      mode: loaded.session.mode,
      carry: previous?.carry ?? '{}',
      completion_status: launched.completion,
      success_status: launched.success,
      score_scaled: launched.scaled,
      score_raw: launched.raw,
      score_min: launched.min,
      score_max: launched.max,
      progress_measure: launched.progressMeasure,
      total_time: previous?.total_time ?? null,
      suspended: 0,
      launched: 1,
      delivery_id: deliveryId,
      delivery_seq: 0,
      data_chars: Number(previous?.data_chars ?? 0) + chars,
      updated_at: at,
    })
    const key = { sessionId, itemId, deliveryId: null }
    if (Object.keys(missing).length > 0) await repo.writeScoValues(trx, key, missing, 'add-missing')
    if (Object.keys(refreshed).length > 0) await repo.writeScoValues(trx, key, refreshed)
    // Writes the current item with the progress (saveSessionProgress).
    await updateSessionProgress(
      trx,
      { ...loaded.session, current_item_id: itemId },
      {
        version: loaded.version,
        itemCount: loaded.trackedCount,
        at,
        sequencing: loaded.sequencing && { seq: loaded.sequencing, itemId, results: null },
      },
    )
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

/**
 * The launch of a finished attempt's SCO: its recorded learner-writable values, its total time,
 * cmi.mode = review and no credit, so the content shows the attempt as it was.
 */
function reviewLaunchData(
  loaded: Loaded,
  row: ScoStatesTable | undefined,
  record: Record<string, string>,
): LaunchData {
  const { session, version } = loaded
  return {
    learnerId: session.learner_id,
    learnerName: session.learner_name,
    credit: 'no-credit',
    mode: 'review',
    entry: '',
    ...(row?.total_time && { totalTime: row.total_time }),
    values: carried(version, record),
  }
}
