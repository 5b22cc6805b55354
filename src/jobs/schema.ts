import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * Work handed from the API to the worker. A module inserts a row in the same
 * transaction as the change it follows up (so neither exists without the other);
 * the worker moves rows into the durable queue. An API process that runs no queue
 * (under Deno, or with SLIPWAY_ROLE=api) still schedules work this way.
 */
export const outbox = sqliteTable('outbox', {
  id: text('id').primaryKey(),
  topic: text('topic').notNull(),
  tenantId: text('tenant_id'),
  payload: text('payload', { mode: 'json' }).notNull().$type<Record<string, unknown>>(),
  /** earliest time to run (Unix ms) */
  runAt: integer('run_at').notNull(),
  createdAt: integer('created_at').notNull(),
  /** set once the job is in the queue */
  dispatchedAt: integer('dispatched_at'),
}, (t) => [index('outbox_pending_idx').on(t.dispatchedAt, t.runAt)])
