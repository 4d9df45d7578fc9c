import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import type { TransactionRunner } from '../../infra/db/group-commit.ts'
import type { Database, Executor } from '../../infra/db/schema.ts'
import type { SessionsTable } from '../../infra/db/tables/sessions.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Clock } from '../../shared/clock.ts'
import { newId } from '../../shared/ids.ts'
import { signToken, type TokenPurpose, verifyToken } from '../../shared/signed-token.ts'
import type { StoredManifest } from '../packages/package-ingest.ts'
import { type DataModelOptions, type Delta, initialValues } from '../scorm/data-model/index.ts'
import { findTenant } from '../tenants/tenant.repository.ts'
import { type CourseItem, courseItems, trackedItems } from './course-items.ts'
import { finishDelivery, lastAppliedSeq } from './delivery-record.ts'
import { buildLaunchData } from './launch-data.builder.ts'
import { RuntimeCommits } from './runtime-commits.ts'
import * as repo from './session.repository.ts'
import { mergeScoStatus, statusOfRow, updateSessionProgress } from './session-progress.ts'
import { scoStatus } from './session-status.ts'
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
}

/** Versions never change once stored, so their parsed manifests are kept (bounded). */
const VERSION_CACHE_SIZE = 200
/** Tenant settings are re-read at most this often. */
const SETTINGS_TTL_MS = 30_000

export class RuntimeService {
  readonly #deps: RuntimeServiceDeps
  readonly #versions = new Map<string, VersionInfo>()
  readonly #settings = new Map<string, { options: DataModelOptions; until: number }>()
  readonly #commits: RuntimeCommits
  constructor(deps: RuntimeServiceDeps) {
    this.#deps = deps
    this.#commits = new RuntimeCommits({
      runner: deps.commits,
      clock: deps.clock,
      load: (db, sessionId) => this.#load(db, sessionId),
      options: (db, tenantId) => this.#options(db, tenantId),
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
    const info: VersionInfo = {
      version: row.scorm_version ?? '2004',
      items,
      trackedCount: trackedItems(items).length,
      manifest,
      blobPrefix: row.blob_prefix,
    }
    if (this.#versions.size >= VERSION_CACHE_SIZE) this.#versions.clear()
    this.#versions.set(versionId, info)
    return info
  }

  /** Per-tenant data-model options (a tenant may allow 64 000 characters of 1.2 suspend data). */
  async #options(db: Executor, tenantId: string): Promise<DataModelOptions> {
    const now = Date.now()
    const cached = this.#settings.get(tenantId)
    if (cached && cached.until > now) return cached.options
    const tenant = await findTenant(db, tenantId)
    const settings = JSON.parse(tenant?.settings ?? '{}') as { suspendDataLimit12?: number }
    const options = settings.suspendDataLimit12
      ? { suspendDataLimit12: settings.suspendDataLimit12 }
      : {}
    this.#settings.set(tenantId, { options, until: now + SETTINGS_TTL_MS })
    return options
  }

  #verify(purpose: TokenPurpose, token: string | undefined, sessionId: string): void {
    const result = verifyToken<{ sid: string }>(
      this.#deps.config.secretKey,
      purpose,
      token ?? '',
      this.#deps.clock.now(),
    )
    if (!result.ok || result.claims.sid !== sessionId) {
      const why = result.ok
        ? 'is for another session'
        : result.reason === 'expired'
          ? 'has expired'
          : 'is not valid'
      throw new AppError('unauthorized', `This ${purpose} link ${why}`)
    }
  }

  async #load(db: Executor, sessionId: string): Promise<Loaded> {
    const session = await repo.findSessionForRuntime(db, sessionId)
    if (!session) throw new AppError('session_not_found', `No session ${sessionId}`)
    const info = await this.#versionInfo(db, session.version_id)
    return { session, ...info, options: await this.#options(db, session.tenant_id) }
  }

  async start(sessionId: string, launchToken: string | undefined) {
    this.#verify('launch', launchToken, sessionId)
    const { session, version, items, manifest, blobPrefix, options } = await this.#load(
      this.#deps.db,
      sessionId,
    )
    const expires = new Date(this.#deps.clock.now().getTime() + TOKEN_TTL_MS)
    const { secretKey } = this.#deps.config
    const contentToken = signToken(
      secretKey,
      'content',
      { p: blobPrefix, sid: session.id },
      expires,
    )
    const firstLaunchable = items.find((i) => i.launchable)
    return {
      session_id: session.id,
      attempt_id: `${session.id}:${session.attempt_number}`,
      runtime_token: signToken(secretKey, 'runtime', { sid: session.id }, expires),
      title: manifest.title,
      content_type: manifest.contentType,
      scorm_version: manifest.scormVersion ? version : null,
      content_base: `/c/${contentToken}/`,
      items: items.map(({ manifestItem, ...item }) => item),
      navigation: { flow: true, choice: true },
      current_item_id: session.current_item_id ?? firstLaunchable?.id ?? null,
      data_model_options: options,
    }
  }

  /** Starts one launch of an item; a launch left open (tab closed, no Terminate) is ended first. */
  async createDelivery(sessionId: string, runtimeToken: string | undefined, itemId: string) {
    this.#verify('runtime', runtimeToken, sessionId)
    const at = this.#deps.clock.now().toISOString()
    return this.#deps.db.transaction().execute(async (trx) => {
      const loaded = await this.#load(trx, sessionId)
      const item = loaded.items.find((i) => i.id === itemId && i.launchable)
      if (!item?.href)
        throw new AppError('not_found', `No launchable item ${itemId} in this course`)
      for (const open of await repo.openDeliveries(trx, sessionId)) {
        const current = await repo.findScoStates(trx, sessionId)
        const row = current.find((s) => s.item_id === open.item_id)
        await repo.endDelivery(trx, open.id, lastAppliedSeq(open, row), at)
        loaded.session = await finishDelivery(trx, loaded, current, open.item_id, at)
      }
      const states = await repo.findScoStates(trx, sessionId)
      const previous = states.find((s) => s.item_id === itemId)
      const sharedStores = await readSharedData(
        trx,
        loaded.session,
        sharedDataScope(loaded.manifest, loaded.session),
        loaded.version === '2004'
          ? (item.manifestItem?.sharedData ?? []).map((d) => d.targetID)
          : [],
      )
      const launchData = buildLaunchData({
        sharedStores,
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
        launchedBefore: (await repo.countDeliveries(trx, sessionId, itemId)) > 0,
      })
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
      const status = previous ? statusOfRow(previous) : null
      const launched = mergeScoStatus(status, scoStatus(loaded.version, {}, true))
      await repo.upsertScoState(trx, {
        session_id: sessionId,
        item_id: itemId,
        tenant_id: loaded.session.tenant_id,
        mode: loaded.session.mode,
        state: JSON.stringify(initialValues(loaded.version, launchData)),
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
        updated_at: at,
      })
      // Writes the current item with the progress (saveSessionProgress).
      await updateSessionProgress(
        trx,
        { ...loaded.session, current_item_id: itemId },
        {
          itemCount: loaded.trackedCount,
          at,
        },
      )
      return {
        delivery_id: deliveryId,
        item_id: itemId,
        scorm_version: loaded.version,
        href: item.href,
        launch_data: launchData,
        data_model_options: loaded.options,
      }
    })
  }

  /** Applies one delta; see docs/runtime-protocol.md for the answers. */
  async commit(
    sessionId: string,
    runtimeToken: string | undefined,
    body: { delivery_id?: unknown; delta?: unknown },
  ) {
    this.#verify('runtime', runtimeToken, sessionId)
    const delta = body.delta
    if (typeof body.delivery_id !== 'string' || !isDelta(delta)) {
      throw new AppError(
        'invalid_request',
        'A commit needs delivery_id and a delta {seq, fromSeq, values, final}',
      )
    }
    return this.#commits.commit(sessionId, body.delivery_id, delta)
  }
}
