import { type Kysely, sql } from 'kysely'
import type { Dialect } from '../schema.ts'

/** Webhook endpoints, deliveries (which double as the delivery work queue) and attempts. */
// Long on purpose: a migration is one ordered list of DDL steps; split, the schema would no longer
// read in order.
export function webhooksMigration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('webhook_endpoints')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('label', 'text')
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('event_scope', 'text', (c) => c.notNull())
        .addColumn('event_types', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('secret_box', 'text', (c) => c.notNull())
        .addColumn('previous_secret_box', 'text')
        .addColumn('previous_secret_expires_at', 'text')
        .addColumn('secret_rotated_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('webhook_endpoints_scope_created')
        .on('webhook_endpoints')
        .columns(['tenant_id', 'mode', 'created_at', 'id'])
        .execute()

      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('endpoint_id', 'text', (c) =>
          c.notNull().references('webhook_endpoints.id').onDelete('cascade'),
        )
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('total_attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('requeue_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'text', (c) => c.notNull())
        .addColumn('lease_until', 'text')
        .addColumn('lease_token', 'text')
        .addColumn('interrupted', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_attempt_at', 'text')
        .addColumn('last_status_code', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('delivered_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        // Fan-out inserts with ON CONFLICT DO NOTHING on this key: re-runs queue nothing new.
        .addUniqueConstraint('webhook_deliveries_event_endpoint', ['event_id', 'endpoint_id'])
        .execute()
      // The claim walks each endpoint's due deliveries in order, and counts its leased ones.
      await sql`create index webhook_deliveries_pending
        on webhook_deliveries (endpoint_id, next_attempt_at, id)
        where status in ('queued', 'failed')`.execute(db)
      await sql`create index webhook_deliveries_leased
        on webhook_deliveries (endpoint_id, lease_until)
        where lease_token is not null`.execute(db)
      await sql`create index webhook_deliveries_due
        on webhook_deliveries (next_attempt_at)
        where status in ('queued', 'failed')`.execute(db)
      // History listing, and pruning (per endpoint, oldest first), walk this one.
      await db.schema
        .createIndex('webhook_deliveries_history')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'created_at', 'id'])
        .execute()

      await db.schema
        .createTable('webhook_delivery_attempts')
        .addColumn('delivery_id', 'text', (c) =>
          c.notNull().references('webhook_deliveries.id').onDelete('cascade'),
        )
        .addColumn('number', 'integer', (c) => c.notNull())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('attempted_at', 'text', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('latency_ms', 'integer')
        .addColumn('error', 'text')
        .addColumn('response_excerpt', 'text')
        .addColumn('response_truncated', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('webhook_delivery_attempts_pk', ['delivery_id', 'number'])
        .execute()
    },
  }
}
