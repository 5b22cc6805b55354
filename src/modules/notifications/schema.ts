/**
 * The notification inbox: one row per notification of a tenant user. The row keeps what
 * happened (`kind` and `data`: ids, chain, amounts as text), not its wording: the title and
 * body are rendered in the user's language when read or pushed (templates.ts), so a user who
 * changes language reads the whole inbox in the new one.
 */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { tenants, users } from '../../db/schema'

export const notifications = sqliteTable('notifications', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  userId: text('user_id').notNull().references(() => users.id),
  /** one of NOTIFICATION_KINDS (notify.ts) */
  kind: text('kind').notNull(),
  /** string values only (ids, chain, amounts as integer or decimal text), or null */
  data: text('data', { mode: 'json' }).notNull().$type<Record<string, string | null>>(),
  /** Unix ms */
  createdAt: integer('created_at').notNull(),
  /** when the user marked it read (Unix ms); null while unread */
  readAt: integer('read_at'),
  /** when the push job handed it to FCM (Unix ms); a job run again after that sends nothing */
  pushedAt: integer('pushed_at'),
}, (t) => [
  // the inbox: a user's notifications newest first, and the unread count
  index('notifications_user_idx').on(t.tenantId, t.userId, t.createdAt),
  index('notifications_user_unread_idx').on(t.tenantId, t.userId, t.readAt),
])
