import type { Kysely } from 'kysely'
import { cursorPosition, pageOf } from '../../infra/db/keyset.ts'
import type { Database, Executor } from '../../infra/db/schema.ts'
import type { DispatchesTable } from '../../infra/db/tables/dispatches.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Clock } from '../../shared/clock.ts'
import { recordAuditEvent } from '../events/audit-event.repository.ts'
import { findPackage } from '../packages/package.repository.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import {
  type DispatchView,
  dispatchEventData,
  type LinkSettings,
  toDispatchView,
} from './dispatch.mapper.ts'
import * as repo from './dispatch.repository.ts'
import {
  type DispatchAction,
  type DispatchStatus,
  effectiveStatus,
  transition,
} from './dispatch.state-machine.ts'
import { exportWrapper, listRefusals } from './dispatch-exports.ts'
import {
  type CreateDispatchInput,
  cleanDomains,
  cleanExpiry,
  cleanLicenseLimit,
  cleanName,
  cleanTags,
  newDispatchRow,
  type UpdateDispatchInput,
} from './dispatch-input.ts'
import { raiseWrapperGeneration } from './dispatch-registration.repository.ts'

export interface DispatchServiceDeps {
  db: Kysely<Database>
  clock: Clock
  links: LinkSettings
}

export interface DispatchListQuery {
  limit?: number
  cursor?: string
  packageId?: string
  tag?: string
  status?: Exclude<DispatchStatus, 'deleted'>
}

/** The columns the plain lifecycle actions set besides the status. */
const SIMPLE_CHANGES = {
  pause: (_row: DispatchesTable, at: string) => ({ paused_at: at }),
  resume: () => ({ paused_at: null }),
  archive: (_row: DispatchesTable, at: string) => ({ archived_at: at }),
  restore: () => ({ archived_at: null, paused_at: null }),
} satisfies Partial<
  Record<DispatchAction, (row: DispatchesTable, at: string) => Partial<DispatchesTable>>
>

/** A transition that lost a compare-and-set to a concurrent one is re-evaluated this often. */
const CAS_ATTEMPTS = 5

/**
 * Dispatch management: create, read, list, change, and the lifecycle transitions of
 * dispatch.state-machine.ts. Each change writes its audit event in the same transaction.
 */
export class DispatchService {
  readonly #deps: DispatchServiceDeps
  constructor(deps: DispatchServiceDeps) {
    this.#deps = deps
  }

  async #view(db: Executor, scope: TenantScope, row: DispatchesTable): Promise<DispatchView> {
    const completions = await repo.completionCounts(db, scope, [row.id])
    return toDispatchView(row, {
      completions: completions.get(row.id) ?? 0,
      now: this.#deps.clock.now(),
      links: this.#deps.links,
    })
  }

  async #require(db: Executor, scope: TenantScope, id: string): Promise<DispatchesTable> {
    const row = await repo.findDispatch(db, scope, id)
    if (!row || row.status === 'deleted') {
      throw new AppError('dispatch_not_found', `No dispatch ${id}`)
    }
    return row
  }

  async create(scope: TenantScope, input: CreateDispatchInput): Promise<DispatchView> {
    const { db, clock } = this.#deps
    const now = clock.now()
    const at = now.toISOString()
    const row = newDispatchRow(scope, input, now)
    await db.transaction().execute(async (trx) => {
      const pkg = await findPackage(trx, scope, input.packageId)
      if (!pkg) throw new AppError('package_not_found', `No package ${input.packageId}`)
      if (pkg.content_type !== 'scorm') {
        throw new AppError(
          'unsupported_content',
          'Only SCORM packages can be dispatched: the wrapper runs them with the SCORM player',
        )
      }
      if (pkg.status === 'archived') {
        throw new AppError('invalid_state', 'The package is archived; restore it to dispatch it')
      }
      await repo.insertDispatch(trx, scope, row)
      await repo.replaceTags(trx, scope, row.id, JSON.parse(row.tags) as string[])
      await recordAuditEvent(trx, scope, {
        type: 'dispatch.created',
        entityType: 'dispatch',
        entityId: row.id,
        data: dispatchEventData(row, now),
        occurredAt: at,
      })
    })
    return this.#view(db, scope, row)
  }

  async get(scope: TenantScope, id: string): Promise<DispatchView> {
    return this.#view(this.#deps.db, scope, await this.#require(this.#deps.db, scope, id))
  }

  async list(
    scope: TenantScope,
    query: DispatchListQuery,
  ): Promise<{ dispatches: DispatchView[]; next_cursor: string | null }> {
    const { db, clock, links } = this.#deps
    const limit = query.limit ?? 50
    const after = cursorPosition(query.cursor || undefined)
    const now = clock.now()
    const rows = await repo.listDispatches(db, scope, {
      limit,
      packageId: query.packageId,
      tag: query.tag,
      status: query.status,
      now: now.toISOString(),
      after,
    })
    const page = pageOf(rows, limit)
    const completions = await repo.completionCounts(
      db,
      scope,
      page.data.map((r) => r.id),
    )
    return {
      dispatches: page.data.map((r) =>
        toDispatchView(r, { completions: completions.get(r.id) ?? 0, now, links }),
      ),
      next_cursor: page.next_cursor,
    }
  }

  /**
   * Applies `action` if the state machine allows it from the current status: compare-and-set on
   * the row, re-read and re-checked when a concurrent change got there first; 409 otherwise.
   */
  async #apply(
    scope: TenantScope,
    id: string,
    action: DispatchAction,
    changes: (row: DispatchesTable, at: string) => Partial<DispatchesTable>,
    more: {
      /** Fields the audit event carries beyond the dispatch's own, from the row before. */
      eventData?: (before: DispatchesTable) => Record<string, unknown>
      /** Runs in the same transaction once the change has applied. */
      alsoIn?: (trx: Executor) => Promise<void>
    } = {},
  ): Promise<DispatchesTable> {
    const { db, clock } = this.#deps
    for (let attempt = 1; ; attempt++) {
      const now = clock.now()
      const at = now.toISOString()
      const result = await db.transaction().execute(async (trx) => {
        const row = await this.#require(trx, scope, id)
        const status = effectiveStatus(row, now)
        const step = transition(row.status, status, action)
        if (!step.ok) {
          throw new AppError(
            'invalid_state',
            `Cannot ${action} a dispatch that is ${status} (allowed from: ${step.allowedFrom.join(', ')})`,
            { status, action, allowed_from: step.allowedFrom },
          )
        }
        // Strictly later than the previous change, so the compare-and-set below always sees it.
        const stamp =
          at > row.updated_at ? at : new Date(Date.parse(row.updated_at) + 1).toISOString()
        const next: DispatchesTable = {
          ...row,
          ...changes(row, stamp),
          status: step.to,
          updated_at: stamp,
        }
        const { id: _id, tenant_id, mode, package_id, ...columns } = next
        const changed = await repo.updateDispatchIf(
          trx,
          scope,
          id,
          { status: row.status, updatedAt: row.updated_at },
          columns,
        )
        if (!changed) return null
        await more.alsoIn?.(trx)
        await recordAuditEvent(trx, scope, {
          type: step.event,
          entityType: 'dispatch',
          entityId: id,
          data: { ...dispatchEventData(next, now), ...more.eventData?.(row) },
          occurredAt: stamp,
        })
        return next
      })
      if (result) return result
      if (attempt >= CAS_ATTEMPTS) {
        throw new AppError('conflict', 'The dispatch is being changed concurrently; retry')
      }
    }
  }

  async #simple(scope: TenantScope, id: string, action: keyof typeof SIMPLE_CHANGES) {
    const row = await this.#apply(scope, id, action, SIMPLE_CHANGES[action])
    return this.#view(this.#deps.db, scope, row)
  }

  pause = (scope: TenantScope, id: string) => this.#simple(scope, id, 'pause')
  resume = (scope: TenantScope, id: string) => this.#simple(scope, id, 'resume')
  archive = (scope: TenantScope, id: string) => this.#simple(scope, id, 'archive')
  /** Back to active (or expired, when the expiry passed meanwhile); a pause is not kept. */
  restore = (scope: TenantScope, id: string) => this.#simple(scope, id, 'restore')

  /**
   * A later expiry (or none: null). It must be in the future and later than the current one;
   * the expired event can fire again for the new expiry.
   */
  async extend(scope: TenantScope, id: string, expiresAt: string | null): Promise<DispatchView> {
    const now = this.#deps.clock.now()
    const next = cleanExpiry(expiresAt, now)
    const row = await this.#apply(
      scope,
      id,
      'extend',
      (current) => {
        if (current.expires_at === null && next !== null) {
          throw new AppError(
            'validation_failed',
            'This dispatch never expires; an expiry would shorten it, not extend it',
          )
        }
        if (current.expires_at !== null && next !== null && next <= current.expires_at) {
          throw new AppError(
            'validation_failed',
            `expiresAt must be later than the current expiry ${current.expires_at}`,
          )
        }
        return { expires_at: next, expired_event_at: null }
      },
      { eventData: (previous) => ({ previous_expires_at: previous.expires_at }) },
    )
    return this.#view(this.#deps.db, scope, row)
  }

  async update(scope: TenantScope, id: string, input: UpdateDispatchInput): Promise<DispatchView> {
    const name = input.name === undefined ? undefined : cleanName(input.name)
    const limit =
      input.licenseLimit === undefined ? undefined : cleanLicenseLimit(input.licenseLimit)
    const domains =
      input.allowedDomains === undefined ? undefined : cleanDomains(input.allowedDomains)
    const tags = input.tags === undefined ? undefined : cleanTags(input.tags)
    const row = await this.#apply(
      scope,
      id,
      'update',
      () => ({
        ...(name !== undefined && { name }),
        ...(limit !== undefined && { license_limit: limit }),
        ...(domains !== undefined && { allowed_domains: JSON.stringify(domains) }),
        ...(tags !== undefined && { tags: JSON.stringify(tags) }),
      }),
      {
        alsoIn: async (trx) => {
          if (tags !== undefined) await repo.replaceTags(trx, scope, id, tags)
        },
      },
    )
    return this.#view(this.#deps.db, scope, row)
  }

  /** Soft delete: launches are refused, the record answers 404, sessions keep their dispatch id. */
  async delete(scope: TenantScope, id: string): Promise<void> {
    await this.#apply(scope, id, 'delete', (_r, at) => ({ deleted_at: at }))
  }

  /** The latest refused launches with their reasons, newest first. */
  async refusals(scope: TenantScope, id: string, limit = 50) {
    const row = await this.#require(this.#deps.db, scope, id)
    return listRefusals(this.#deps.db, scope, row.id, limit)
  }

  /**
   * Revokes every wrapper exported so far: the wrapper generation goes up, so launches from
   * older packages are refused (`wrapper_revoked`) and the next export carries the new token.
   * Audit event `dispatch.wrappers_revoked` (never delivered). Allowed in every state but deleted.
   */
  async revokeWrappers(scope: TenantScope, id: string): Promise<DispatchView> {
    const { db, clock } = this.#deps
    const now = clock.now()
    const row = await db.transaction().execute(async (trx) => {
      const current = await this.#require(trx, scope, id)
      await raiseWrapperGeneration(trx, scope, current.id, now.toISOString())
      const updated = await this.#require(trx, scope, id)
      await recordAuditEvent(trx, scope, {
        type: 'dispatch.wrappers_revoked',
        entityType: 'dispatch',
        entityId: id,
        data: {
          ...dispatchEventData(updated, now),
          wrapper_generation: updated.wrapper_generation,
        },
        occurredAt: now.toISOString(),
      })
      return updated
    })
    return this.#view(db, scope, row)
  }

  /** The wrapper zip for the client LMS (default: the dispatched package's SCORM version). */
  async exportPackage(scope: TenantScope, id: string, scormVersion?: '1.2' | '2004') {
    const { db, clock, links } = this.#deps
    const row = await this.#require(db, scope, id)
    return exportWrapper(db, scope, row, { links, scormVersion, now: clock.now() })
  }
}
