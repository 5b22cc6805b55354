/**
 * The embedded card onramp sandbox's own table (sandbox only): its sessions, kept across
 * restarts with what each still owes Slipway (repo.ts). Read and written only by
 * ./repo.ts; nothing of Slipway's own card onramp records is here.
 */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * One provider session: `body` is the Stripe-shaped session as JSON; `pending` is 1 while its
 * last change may not have reached Slipway (its event is posted again at the next start);
 * `completing` is 1 while its stablecoin is being delivered, with `signed` the transfer signed
 * and saved before it was broadcast (JSON; sent again rather than signed twice).
 */
export const sandboxCardOnrampSessions = sqliteTable('sandbox_card_onramp_sessions', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull(),
  body: text('body').notNull(),
  pending: integer('pending').notNull().default(0),
  completing: integer('completing').notNull().default(0),
  signed: text('signed'),
  createdAt: integer('created_at').notNull(),
}, (t) => [
  index('sandbox_card_onramp_sessions_created_idx').on(t.createdAt),
  index('sandbox_card_onramp_sessions_pending_idx').on(t.pending, t.completing),
])
