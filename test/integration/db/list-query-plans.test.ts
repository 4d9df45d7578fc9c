import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  CompiledQuery,
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  sql,
  type UnknownRow,
} from 'kysely'
import type { KeysetPosition } from '../../../src/infra/db/keyset.ts'
import type { Database, Dialect, Executor } from '../../../src/infra/db/schema.ts'
import { listConversions } from '../../../src/modules/conversions/conversion.repository.ts'
import { listDispatches } from '../../../src/modules/dispatches/dispatch.repository.ts'
import { listCredentials } from '../../../src/modules/lrs/credential.repository.ts'
import { listPackages } from '../../../src/modules/packages/package.repository.ts'
import {
  listSessions,
  type SessionListFilter,
} from '../../../src/modules/sessions/session.repository.ts'
import type { TenantScope } from '../../../src/modules/tenants/tenant-scope.ts'
import { listDeliveries } from '../../../src/modules/webhooks/webhook-delivery.repository.ts'
import { listEndpoints } from '../../../src/modules/webhooks/webhook-endpoint.repository.ts'
import { describeEachDatabase } from '../../helpers/database.ts'

/*
 * "Lists seek, never scan" (DESIGN §12): every keyset list, with and without its filters and
 * cursor, is one range seek on an index that leads with the list's filters, and needs no sort.
 * The plans are read from the databases themselves; on PostgreSQL sequential and bitmap scans
 * are switched off for the transaction, so with few rows the planner still has to say which
 * index (if any) gives the rows in order — an index that does not would show a Sort node.
 */

const scope: TenantScope = { tenantId: 'ten_plans', mode: 'test' }
const after: KeysetPosition = { key: '2026-01-01T00:00:00.000Z', id: 'zzz' }
const now = '2026-06-01T00:00:00.000Z'

interface ListCase {
  name: string
  /** The index the seek must use. */
  index: string
  /** The keyset's sort column (default `created_at`) and direction (default `<`, newest first). */
  seek?: { column: 'created_at' | 'updated_at'; op: '<' | '>' }
  /** The keyset's id column (default `id`). */
  idColumn?: string
  /** Each row found by the seek is then read by this primary key index. */
  readsBy?: string
  /** What differs on PostgreSQL. */
  postgres?: Pick<ListCase, 'index' | 'idColumn' | 'readsBy'>
  run(db: Executor, after: KeysetPosition | undefined): Promise<unknown>
}

const sessions = (filter: SessionListFilter) => (db: Executor, a: KeysetPosition | undefined) =>
  listSessions(db, scope, filter, 50, a)

/** PostgreSQL's list by `updated_at` seeks `session_activity`, then reads each session by id. */
const activity = (index: string) => ({
  postgres: { index, idColumn: 'session_id', readsBy: 'sessions_pkey' },
})

const cases: ListCase[] = [
  {
    name: 'packages',
    index: 'packages_scope_created',
    run: (db, a) => listPackages(db, scope, { limit: 50, after: a }),
  },
  {
    name: 'packages by status',
    index: 'packages_scope_status_created',
    run: (db, a) => listPackages(db, scope, { limit: 50, status: 'active', after: a }),
  },
  {
    name: 'dispatches',
    index: 'dispatches_scope_created',
    run: (db, a) => listDispatches(db, scope, { limit: 50, now, after: a }),
  },
  {
    name: 'dispatches of a package',
    index: 'dispatches_scope_package_created',
    run: (db, a) => listDispatches(db, scope, { limit: 50, packageId: 'pkg_1', now, after: a }),
  },
  {
    name: 'webhook endpoints',
    index: 'webhook_endpoints_scope_created',
    run: (db, a) => listEndpoints(db, scope, { limit: 50, after: a }),
  },
  {
    name: 'deliveries of an endpoint',
    index: 'webhook_deliveries_scope_endpoint_created',
    run: (db, a) => listDeliveries(db, scope, 'whk_1', { limit: 50, after: a }),
  },
  {
    name: 'deliveries of an endpoint by status',
    index: 'webhook_deliveries_scope_endpoint_status_created',
    run: (db, a) => listDeliveries(db, scope, 'whk_1', { limit: 50, status: 'failed', after: a }),
  },
  {
    name: 'conversions',
    index: 'conversions_scope_created',
    run: (db, a) => listConversions(db, scope, { limit: 50, after: a }),
  },
  {
    name: 'conversions by status',
    index: 'conversions_scope_status_created',
    run: (db, a) => listConversions(db, scope, { limit: 50, status: 'failed', after: a }),
  },
  {
    name: 'LRS credentials',
    index: 'lrs_credentials_listed_created',
    run: (db, a) => listCredentials(db, scope, { limit: 50, after: a }),
  },
  { name: 'sessions', index: 'sessions_scope_created', run: sessions({}) },
  {
    name: 'sessions by updated_at',
    index: 'sessions_scope_updated',
    ...activity('session_activity_scope_updated'),
    seek: { column: 'updated_at', op: '<' },
    run: sessions({ sort: 'updated_at' }),
  },
  {
    name: 'sessions oldest first',
    index: 'sessions_scope_created',
    seek: { column: 'created_at', op: '>' },
    run: sessions({ order: 'asc' }),
  },
  {
    name: 'sessions of a package',
    index: 'sessions_scope_package',
    run: sessions({ package_id: 'pkg_1' }),
  },
  {
    name: 'sessions of a package by updated_at',
    index: 'sessions_scope_package_updated',
    ...activity('session_activity_scope_package_updated'),
    seek: { column: 'updated_at', op: '<' },
    run: sessions({ package_id: 'pkg_1', sort: 'updated_at' }),
  },
  {
    name: 'sessions of a package oldest first by updated_at',
    index: 'sessions_scope_package_updated',
    ...activity('session_activity_scope_package_updated'),
    seek: { column: 'updated_at', op: '>' },
    run: sessions({ package_id: 'pkg_1', sort: 'updated_at', order: 'asc' }),
  },
  {
    name: 'sessions of a learner',
    index: 'sessions_scope_learner_created',
    run: sessions({ learner_id: 'lrn_1' }),
  },
  {
    name: 'sessions of a dispatch',
    index: 'sessions_scope_dispatch_created',
    run: sessions({ dispatch_id: 'dsp_1' }),
  },
]

/** Records the query a repository function runs, so its plan can be read afterwards. */
class CaptureQueries implements KyselyPlugin {
  readonly nodes: PluginTransformQueryArgs[] = []
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.nodes.push(args)
    return args.node
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result
  }
}

interface PgPlanNode {
  'Node Type': string
  'Index Name'?: string
  'Index Cond'?: string
  Plans?: PgPlanNode[]
}

function pgNodes(node: PgPlanNode): PgPlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(pgNodes)]
}

/** The plan of the one query `list` runs, as lines (SQLite) or flattened nodes (PostgreSQL). */
async function planOf(
  db: Kysely<Database>,
  dialect: Dialect,
  list: ListCase,
  cursor: KeysetPosition | undefined,
): Promise<{ sqlite: string[]; pg: PgPlanNode[]; query: string }> {
  return db.transaction().execute(async (trx) => {
    if (dialect === 'postgres') {
      await sql`set local enable_seqscan = off`.execute(trx)
      await sql`set local enable_bitmapscan = off`.execute(trx)
    }
    const capture = new CaptureQueries()
    await list.run(trx.withPlugin(capture), cursor)
    assert.equal(capture.nodes.length, 1, `${list.name} runs one query`)
    const [{ node, queryId }] = capture.nodes as [PluginTransformQueryArgs]
    const compiled = trx.getExecutor().compileQuery(node, queryId)
    const prefix = dialect === 'sqlite' ? 'explain query plan ' : 'explain (format json) '
    const result = await trx.executeQuery<Record<string, unknown>>(
      CompiledQuery.raw(prefix + compiled.sql, [...compiled.parameters]),
    )
    if (dialect === 'sqlite') {
      return { sqlite: result.rows.map((r) => String(r.detail)), pg: [], query: compiled.sql }
    }
    const raw = result.rows[0]?.['QUERY PLAN']
    const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as [{ Plan: PgPlanNode }]
    return { sqlite: [], pg: pgNodes(doc[0].Plan), query: compiled.sql }
  })
}

describeEachDatabase('list query plans', (database) => {
  for (const listed of cases) {
    for (const cursor of [undefined, after]) {
      const title = `${listed.name}${cursor ? ' after a cursor' : ''}: a range seek, no sort`
      test(title, async () => {
        const { db, dialect } = database()
        const list = dialect === 'postgres' ? { ...listed, ...listed.postgres } : listed
        const { column, op } = list.seek ?? { column: 'created_at', op: '<' }
        const id = list.idColumn ?? 'id'
        const plan = await planOf(db.kysely, dialect, list, cursor)
        if (dialect === 'sqlite') {
          const text = plan.sqlite.join('\n')
          assert.match(text, new RegExp(`SEARCH \\w+ USING (COVERING )?INDEX ${list.index} \\(`))
          assert.doesNotMatch(text, /TEMP B-TREE/, `no sort step:\n${text}`)
          assert.doesNotMatch(text, /^SCAN /m, `no full scan:\n${text}`)
          if (cursor)
            assert.ok(text.includes(`(${column},${id})${op}(?,?)`), `cursor in the seek:\n${text}`)
          return
        }
        const types = plan.pg.map((n) => n['Node Type'])
        const scans = plan.pg.filter((n) => /Scan$/.test(n['Node Type']))
        assert.deepEqual(
          scans.map((n) => [
            n['Node Type'].replace('Index Only Scan', 'Index Scan'),
            n['Index Name'],
          ]),
          [['Index Scan', list.index], ...(list.readsBy ? [['Index Scan', list.readsBy]] : [])],
          `one index scan:\n${plan.query}\n${JSON.stringify(plan.pg, null, 1)}`,
        )
        assert.ok(!types.some((t) => /Sort/.test(t)), `no sort step: ${types.join(', ')}`)
        const cond = scans[0]?.['Index Cond'] ?? ''
        assert.match(cond, /tenant_id = /, 'the scope is in the seek')
        if (cursor)
          assert.ok(
            cond.includes(`ROW(${column}, ${id}) ${op} ROW(`),
            `cursor in the seek: ${cond}`,
          )
      })
    }
  }
})
