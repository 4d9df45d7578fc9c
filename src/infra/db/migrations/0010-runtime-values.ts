import type { Kysely } from 'kysely'
import type { Dialect } from '../schema.ts'

/** Rows copied per INSERT when moving stored JSON records into `sco_values`. */
const COPY_BATCH = 500

/**
 * Runtime data integrity (issue 11, issue 10.4):
 * - A SCO's runtime record becomes one row per element (`sco_values`), so a commit writes only
 *   the elements it changed instead of rewriting one JSON blob that grew with every commit, and
 *   no launch can replace what earlier launches recorded. `sco_states.data_chars` keeps the
 *   record's size (element names plus values) for the per-attempt limit.
 * - A package's runtime options (`lenient_identifiers`) and the warnings collected when its
 *   content writes values the standard refuses.
 */
export function runtimeValuesMigration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('sco_values')
        .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id'))
        .addColumn('item_id', 'text', (c) => c.notNull())
        .addColumn('element', 'text', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        // The delivery (launch) whose commit wrote the value; null for values the LMS supplied.
        .addColumn('delivery_id', 'text')
        .addPrimaryKeyConstraint('sco_values_pk', ['session_id', 'item_id', 'element'])
        .execute()
      await db.schema
        .alterTable('sco_states')
        .addColumn('data_chars', 'integer', (c) => c.notNull().defaultTo(0))
        .execute()
      await copyRecords(db)
      await db.schema.alterTable('sco_states').dropColumn('state').execute()

      await db.schema
        .alterTable('packages')
        .addColumn('runtime_options', 'text', (c) => c.notNull().defaultTo('{}'))
        .execute()
      await db.schema
        .createTable('package_runtime_warnings')
        .addColumn('package_id', 'text', (c) => c.notNull().references('packages.id'))
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('code', 'text', (c) => c.notNull())
        .addColumn('element', 'text', (c) => c.notNull())
        .addColumn('example', 'text', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addColumn('first_seen_at', 'text', (c) => c.notNull())
        .addColumn('last_seen_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('package_runtime_warnings_pk', ['package_id', 'code', 'element'])
        .execute()
    },
  }
}

type Db = Kysely<{
  sco_states: {
    session_id: string
    item_id: string
    state: string
    data_chars: number
    delivery_id: string | null
  }
  sco_values: {
    session_id: string
    item_id: string
    element: string
    value: string
    delivery_id: string | null
  }
}>

/**
 * Each SCO row's JSON record becomes its element rows; its size is recorded beside it. The JSON
 * was the open launch's whole state, so its rows are marked as that launch's: a launch open at
 * the upgrade rebuilds the same state from them and keeps going.
 */
export async function copyRecords(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as unknown as Db
  let after = { session_id: '', item_id: '' }
  for (;;) {
    const rows = await db
      .selectFrom('sco_states')
      .select(['session_id', 'item_id', 'state', 'delivery_id'])
      .where((eb) =>
        eb.or([
          eb('session_id', '>', after.session_id),
          eb.and([eb('session_id', '=', after.session_id), eb('item_id', '>', after.item_id)]),
        ]),
      )
      .orderBy('session_id')
      .orderBy('item_id')
      .limit(COPY_BATCH)
      .execute()
    for (const row of rows) {
      const values = Object.entries(JSON.parse(row.state || '{}') as Record<string, unknown>)
        .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
        .map(([element, value]) => ({
          session_id: row.session_id,
          item_id: row.item_id,
          element,
          value,
          delivery_id: row.delivery_id,
        }))
      for (let i = 0; i < values.length; i += COPY_BATCH) {
        await db
          .insertInto('sco_values')
          .values(values.slice(i, i + COPY_BATCH))
          .execute()
      }
      const chars = values.reduce((n, v) => n + v.element.length + v.value.length, 0)
      await db
        .updateTable('sco_states')
        .set({ data_chars: chars })
        .where('session_id', '=', row.session_id)
        .where('item_id', '=', row.item_id)
        .execute()
    }
    const last = rows.at(-1)
    if (!last || rows.length < COPY_BATCH) return
    after = { session_id: last.session_id, item_id: last.item_id }
  }
}
