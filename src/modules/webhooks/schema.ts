import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

export const WEBHOOK_ENVIRONMENTS = ['sandbox', 'production'] as const
export type WebhookEnvironment = (typeof WEBHOOK_ENVIRONMENTS)[number]
export const DELIVERY_STATUSES = ['queued', 'done', 'failed', 'dropped'] as const
/**
 * Whose endpoint a webhook row is: `platform`, the tenant's webhook (one per environment,
 * routes under /v1/admin/tenants/:id/webhooks); `agent_payments`, one of the agent payments
 * group's own subscriptions (routes 48-53, any number, not bound to an environment: their
 * `environment` column is unused and holds `production`). Both go through the same delivery
 * pipeline (schedule, signing, retries, address checks, delivery log).
 */
export const WEBHOOK_OWNERS = ['platform', 'agent_payments'] as const
export type WebhookOwner = (typeof WEBHOOK_OWNERS)[number]

/** One platform webhook per tenant and environment; any number of group subscriptions. */
export const webhooks = sqliteTable('webhooks', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull(),
  owner: text('owner', { enum: WEBHOOK_OWNERS }).notNull().default('platform'),
  environment: text('environment', { enum: WEBHOOK_ENVIRONMENTS }).notNull(),
  /** as the URL parser writes it */
  url: text('url').notNull(),
  /** empty: every type, including types added later */
  eventTypes: text('event_types', { mode: 'json' }).notNull().$type<string[]>(),
  status: text('status', { enum: ['active', 'disabled'] }).notNull(),
  /** `whsec_...` sealed with associated data `webhook:<tenantId>:<id>:secret` */
  secretSealed: text('secret_sealed').notNull(),
  secretHint: text('secret_hint').notNull(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [
  uniqueIndex('webhooks_tenant_env_uq').on(t.tenantId, t.environment).where(sql`owner = 'platform'`),
  index('webhooks_tenant_owner_idx').on(t.tenantId, t.owner, t.createdAt),
])

/**
 * One event sent to one webhook. The id is the event id (`evt_` + 32 hex) sent as
 * `X-Webhook-Id`; the body is stored as sent, so every attempt carries the same bytes.
 * `round` grows when an operator re-queues a stopped delivery, so the attempt jobs of
 * a new round never collide with the old round's outbox ids.
 */
export const webhookDeliveries = sqliteTable('webhook_deliveries', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull(),
  environment: text('environment', { enum: WEBHOOK_ENVIRONMENTS }).notNull(),
  /** the owner of the webhook it was queued for: each owner's log shows only its own */
  owner: text('owner', { enum: WEBHOOK_OWNERS }).notNull().default('platform'),
  webhookId: text('webhook_id').notNull(),
  type: text('type').notNull(),
  body: text('body').notNull(),
  status: text('status', { enum: DELIVERY_STATUSES }).notNull(),
  round: integer('round').notNull(),
  /** attempts made in the current round */
  attempts: integer('attempts').notNull(),
  maxAttempts: integer('max_attempts').notNull(),
  lastStatusCode: integer('last_status_code'),
  lastError: text('last_error'),
  nextAttemptAt: integer('next_attempt_at'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [
  index('webhook_deliveries_webhook_idx').on(t.tenantId, t.webhookId, t.createdAt),
  index('webhook_deliveries_status_idx').on(t.status, t.updatedAt),
])

/** Every attempt of a delivery: when, the answer's status or the error. */
export const webhookDeliveryAttempts = sqliteTable('webhook_delivery_attempts', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull(),
  deliveryId: text('delivery_id').notNull(),
  round: integer('round').notNull(),
  attempt: integer('attempt').notNull(),
  at: integer('at').notNull(),
  statusCode: integer('status_code'),
  error: text('error'),
  durationMs: integer('duration_ms').notNull(),
}, (t) => [index('webhook_delivery_attempts_delivery_idx').on(t.tenantId, t.deliveryId, t.at)])

/**
 * Development routes stored by `slipway webhooks listen`: deliveries of the tenant's
 * sandbox webhook to `host` connect to `origin` (the listener on the developer's
 * machine) instead. Honoured only for the tenant that stored the route, only for sandbox
 * deliveries, and never under NODE_ENV=production (transport.ts, service.ts).
 * `restoreUrl`: the sandbox webhook's address before the listener re-pointed it, null
 * when the listener created the webhook; kept here so a listener killed without its
 * clean-up can still be undone by the next one.
 */
export const webhookDevRoutes = sqliteTable('webhook_dev_routes', {
  tenantId: text('tenant_id').notNull(),
  host: text('host').notNull(),
  origin: text('origin').notNull(),
  restoreUrl: text('restore_url'),
  createdAt: integer('created_at').notNull(),
}, (t) => [primaryKey({ columns: [t.tenantId, t.host] })])
