import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * The local outbox: where mail goes when SMTP_URL is not set, so nothing is sent to
 * nowhere. Each row is a complete message (reset links included) for an operator to
 * read on a machine without a mail server.
 */
export const mailOutbox = sqliteTable('mail_outbox', {
  /** the mail job's id */
  id: text('id').primaryKey(),
  tenantId: text('tenant_id'),
  fromName: text('from_name').notNull(),
  fromAddress: text('from_address').notNull(),
  toAddress: text('to_address').notNull(),
  subject: text('subject').notNull(),
  text: text('text').notNull(),
  html: text('html').notNull(),
  createdAt: integer('created_at').notNull(),
}, (t) => [index('mail_outbox_tenant_created_idx').on(t.tenantId, t.createdAt)])
