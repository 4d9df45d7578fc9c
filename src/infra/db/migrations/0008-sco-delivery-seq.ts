import { type Kysely, sql } from 'kysely'
import type { Dialect } from '../schema.ts'

/**
 * A SCO's row names its open delivery and that delivery's last applied commit, so a runtime
 * commit proves its place (compare-and-set) in the same UPDATE that writes the SCO's data,
 * instead of a second UPDATE of the delivery row.
 */
export function scoDeliverySeqMigration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('sco_states').addColumn('delivery_id', 'text').execute()
      await db.schema
        .alterTable('sco_states')
        .addColumn('delivery_seq', 'integer', (c) => c.notNull().defaultTo(0))
        .execute()
      await carryOverOpenDeliveries(db)
    },
  }
}

/** Launches open at the upgrade keep going: their SCO rows take over their position. */
export async function carryOverOpenDeliveries(db: Kysely<unknown>): Promise<void> {
  const open = (column: 'id' | 'last_seq') => sql`(select d.${sql.ref(column)} from sco_deliveries d
    where d.session_id = sco_states.session_id and d.item_id = sco_states.item_id
      and d.ended_at is null)`
  await sql`
    update sco_states
    set delivery_id = ${open('id')}, delivery_seq = coalesce(${open('last_seq')}, 0)
  `.execute(db)
}
