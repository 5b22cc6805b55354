/**
 * The webhook deliveries and their attempts (webhook_deliveries, webhook_delivery_attempts):
 * written when an event is published, read and settled by every attempt, listed for the
 * tenant and the platform's summary. Part of the module's repo: repo.ts hands these on, and
 * the rest of the module imports them from there. Every function takes the tenant id first
 * after the executor, except the two marked platform-wide.
 */
import { and, desc, eq, inArray, sql } from 'drizzle-orm'
import type { Database, Db, Executor } from '../../db/client'
import { nativeGetOnce } from '../../db/native-read'
import { nativeTx, txReadOne, txWrite } from '../../db/native-tx'
import { preparedOnce } from '../../db/prepared'
import { statementOf } from '../../db/batch'
import { newId } from '../../lib/ids'
import { webhookDeliveries, webhookDeliveryAttempts, webhooks, type WebhookEnvironment, type WebhookOwner } from './schema'

export type DeliveryRow = typeof webhookDeliveries.$inferSelect
export type AttemptRow = typeof webhookDeliveryAttempts.$inferSelect

/** One page of one webhook's deliveries, newest first, and the total. */
export async function listWebhookDeliveries(db: Executor, tenantId: string, owner: WebhookOwner, webhookId: string, limit: number, offset: number) {
  const where = and(eq(webhookDeliveries.tenantId, tenantId), eq(webhookDeliveries.owner, owner), eq(webhookDeliveries.webhookId, webhookId))
  const [rows, [count]] = await Promise.all([
    db.select().from(webhookDeliveries).where(where).orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id)).limit(limit).offset(offset),
    db.select({ n: sql<number>`count(*)` }).from(webhookDeliveries).where(where),
  ])
  return { rows, total: Number(count?.n ?? 0) }
}

/** Drops the webhook's deliveries still waiting for an attempt. */
export async function dropWaitingDeliveries(db: Executor, tenantId: string, webhookId: string, reason: string, now: number) {
  await db.update(webhookDeliveries).set({ status: 'dropped', lastError: reason, nextAttemptAt: null, updatedAt: now })
    .where(and(eq(webhookDeliveries.tenantId, tenantId), eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.status, 'queued')))
}

export interface NewDelivery {
  /** the event id */
  id: string
  environment: WebhookEnvironment
  webhookId: string
  /** the webhook's owner; `platform` when left out */
  owner?: WebhookOwner
  type: string
  /** the body exactly as every attempt sends it */
  body: string
  maxAttempts: number
}

type NewDeliveryRow = Omit<DeliveryRow, 'owner' | 'lastStatusCode' | 'lastError'> & { owner: WebhookOwner }

// every published event writes one: run natively inside a local transaction (src/db/native-tx.ts)
const deliveryInsert = txWrite((db, v: NewDeliveryRow) => db.insert(webhookDeliveries).values({
  id: v.id, tenantId: v.tenantId, environment: v.environment, owner: v.owner, webhookId: v.webhookId, type: v.type, body: v.body, status: v.status,
  round: v.round, attempts: v.attempts, maxAttempts: v.maxAttempts, nextAttemptAt: v.nextAttemptAt, createdAt: v.createdAt, updatedAt: v.updatedAt,
}).onConflictDoNothing())

/** The row `insertDelivery` writes, as a statement of a write batch (a fresh event id: nothing to refuse). */
export function insertDeliveryStatement(db: Executor, tenantId: string, d: NewDelivery, now: number) {
  return statementOf(db.insert(webhookDeliveries).values({
    ...d, tenantId, status: 'queued', round: 1, attempts: 0, nextAttemptAt: now, createdAt: now, updatedAt: now,
  }).onConflictDoNothing())
}

/** A queued delivery at round 1, its first attempt due now. False when the id exists (a repeated event). */
export async function insertDelivery(db: Executor, tenantId: string, d: NewDelivery, now: number): Promise<boolean> {
  const changed = await deliveryInsert(db, {
    id: d.id, tenantId, environment: d.environment, owner: d.owner ?? 'platform', webhookId: d.webhookId, type: d.type, body: d.body, status: 'queued',
    round: 1, attempts: 0, maxAttempts: d.maxAttempts, nextAttemptAt: now, createdAt: now, updatedAt: now,
  })
  return changed > 0
}

/**
 * A delivery attempt's read: the delivery and its webhook (null when removed) in one
 * query, both the tenant's (the join matches the webhook on the tenant too). It runs
 * for every attempt: on a local file one native, prepared read on the reader connection
 * (src/db/native-read.ts; the last committed state, which is what an attempt acts on: the
 * attempt it follows was committed before its own job was), elsewhere a drizzle query
 * prepared once per connection, outside transactions (it runs on `db`'s connection).
 */
const deliveryWithWebhookSelect = (db: Db) => {
  const d = webhookDeliveries
  const w = webhooks
  return db.select({
    delivery: {
      id: d.id, tenantId: d.tenantId, environment: d.environment, webhookId: d.webhookId, type: d.type, body: d.body,
      status: d.status, round: d.round, attempts: d.attempts, maxAttempts: d.maxAttempts,
    },
    webhook: { id: w.id, tenantId: w.tenantId, url: w.url, eventTypes: w.eventTypes, status: w.status, secretSealed: w.secretSealed },
  }).from(d)
    .leftJoin(w, and(eq(w.tenantId, sql.placeholder('tenantId')), eq(w.id, d.webhookId)))
    .where(and(eq(d.tenantId, sql.placeholder('tenantId')), eq(d.id, sql.placeholder('id'))))
}
const deliveryWithWebhookQuery = preparedOnce('webhooks:delivery-with-webhook', (db) => deliveryWithWebhookSelect(db).prepare())
type DeliveryWithWebhook = NonNullable<Awaited<ReturnType<ReturnType<typeof deliveryWithWebhookQuery>['get']>>>
// the placeholders in the SQL's order: the join's tenant, the delivery's tenant, its id
const deliveryWithWebhookRead = nativeGetOnce<DeliveryWithWebhook, Database>('webhooks:delivery-with-webhook', deliveryWithWebhookSelect,
  (database, tenantId, _sameTenant, id) => deliveryWithWebhookQuery(database).get({ tenantId, id }))

export async function findDeliveryWithWebhook(database: Database, tenantId: string, id: string): Promise<DeliveryWithWebhook | undefined> {
  const found = await deliveryWithWebhookRead(database, tenantId, tenantId, id)
  // the native read decodes a left join's missing row as columns of nulls, where drizzle answers null
  if (found?.webhook && found.webhook.id === null) return { ...found, webhook: null }
  return found
}

export function findDeliveryIn(db: Executor, tenantId: string, environment: WebhookEnvironment, id: string) {
  return db.select().from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.tenantId, tenantId), eq(webhookDeliveries.owner, 'platform'), eq(webhookDeliveries.environment, environment), eq(webhookDeliveries.id, id))).get()
}

/** Queues a stopped delivery again for a new round, to `webhookId`, same body and id. */
export async function startRound(db: Executor, tenantId: string, id: string, round: { round: number; webhookId: string; maxAttempts: number }, now: number) {
  await db.update(webhookDeliveries).set({
    status: 'queued', ...round, attempts: 0, lastError: null, lastStatusCode: null, nextAttemptAt: now, updatedAt: now,
  }).where(and(eq(webhookDeliveries.tenantId, tenantId), eq(webhookDeliveries.id, id)))
}

/** Drops a delivery still queued in that round. */
export async function dropDelivery(db: Executor, tenantId: string, id: string, round: number, reason: string | null, now: number) {
  await db.update(webhookDeliveries).set({ status: 'dropped', lastError: reason, nextAttemptAt: null, updatedAt: now })
    .where(and(eq(webhookDeliveries.tenantId, tenantId), eq(webhookDeliveries.id, id), eq(webhookDeliveries.status, 'queued'), eq(webhookDeliveries.round, round)))
}

const attemptInsert = txWrite((db, v: AttemptRow) => db.insert(webhookDeliveryAttempts).values({
  id: v.id, tenantId: v.tenantId, deliveryId: v.deliveryId, round: v.round, attempt: v.attempt, at: v.at, statusCode: v.statusCode, error: v.error, durationMs: v.durationMs,
}))

/**
 * Several attempts of the tenant's deliveries: inside a local transaction one native insert
 * each (src/db/native-tx.ts; a few µs, where the query builder's one statement of many rows
 * cost more than the rows), otherwise one statement (one round trip to a server).
 */
export async function insertAttempts(db: Executor, tenantId: string, attempts: Array<Omit<AttemptRow, 'id' | 'tenantId'>>) {
  if (!attempts.length) return
  if (nativeTx(db)) {
    for (const a of attempts) await attemptInsert(db, { id: newId(), tenantId, ...a })
    return
  }
  await db.insert(webhookDeliveryAttempts).values(attempts.map((a) => ({ id: newId(), tenantId, ...a })))
}

export interface AttemptResult {
  status: 'queued' | 'done' | 'failed'
  lastStatusCode: number | null
  lastError: string | null
  nextAttemptAt: number | null
}

export interface AttemptSettlement extends AttemptResult {
  id: string
  round: number
  attempt: number
}

const d = webhookDeliveries
const attemptSettle = txReadOne((db, v: AttemptSettlement & { tenantId: string; previous: number; now: number }) => db.update(d)
  .set({ status: v.status, attempts: v.attempt, lastStatusCode: v.lastStatusCode, lastError: v.lastError, nextAttemptAt: v.nextAttemptAt, updatedAt: v.now })
  .where(and(eq(d.tenantId, v.tenantId), eq(d.id, v.id), eq(d.status, 'queued'), eq(d.round, v.round), eq(d.attempts, v.previous)))
  .returning({ id: d.id, round: d.round, attempts: d.attempts, status: d.status, nextAttemptAt: d.nextAttemptAt }))

/**
 * Records the outcome of attempt `attempt` of `round` for several of the tenant's
 * deliveries in one statement (at most one entry per delivery): each row changes only
 * while it is still queued at that round and attempt (not dropped or re-queued
 * meanwhile). Answers the rows it changed, as they are now.
 */
export async function settleAttempts(db: Executor, tenantId: string, entries: AttemptSettlement[], now: number) {
  if (!entries.length) return []
  if (nativeTx(db)) {
    // inside a local transaction: one native update each (as insertAttempts)
    const settled = []
    for (const e of entries) {
      const row = await attemptSettle(db, { ...e, tenantId, previous: e.attempt - 1, now })
      if (row) settled.push(row)
    }
    return settled
  }
  // VALUES columns are column1..column7 in this order: id, round, attempt, status, code, error, next attempt
  const values = sql.join(entries.map((e) => sql`(${e.id}, ${e.round}, ${e.attempt}, ${e.status}, ${e.lastStatusCode}, ${e.lastError}, ${e.nextAttemptAt})`), sql`, `)
  const rows = await db.all<{ id: string; round: number; attempts: number; status: string; next_attempt_at: number | null }>(sql`
    UPDATE webhook_deliveries SET status = v.column4, attempts = v.column3, last_status_code = v.column5, last_error = v.column6,
      next_attempt_at = v.column7, updated_at = ${now}
    FROM (VALUES ${values}) AS v
    WHERE webhook_deliveries.tenant_id = ${tenantId} AND webhook_deliveries.id = v.column1 AND webhook_deliveries.status = 'queued'
      AND webhook_deliveries.round = v.column2 AND webhook_deliveries.attempts = v.column3 - 1
    RETURNING id, round, attempts, status, next_attempt_at`)
  return rows.map((r) => ({ id: r.id, round: Number(r.round), attempts: Number(r.attempts), status: r.status, nextAttemptAt: r.next_attempt_at === null ? null : Number(r.next_attempt_at) }))
}

/** One page of an environment's platform deliveries (a removed webhook's included), newest first, and the total. */
export async function listDeliveries(db: Executor, tenantId: string, environment: WebhookEnvironment, limit: number, offset: number) {
  const where = and(eq(webhookDeliveries.tenantId, tenantId), eq(webhookDeliveries.owner, 'platform'), eq(webhookDeliveries.environment, environment))
  const [rows, [count]] = await Promise.all([
    db.select().from(webhookDeliveries).where(where).orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id)).limit(limit).offset(offset),
    db.select({ n: sql<number>`count(*)` }).from(webhookDeliveries).where(where),
  ])
  return { rows, total: Number(count?.n ?? 0) }
}

/** The attempts of these deliveries, in the order they were made. */
export async function attemptsOf(db: Executor, tenantId: string, deliveryIds: string[]): Promise<AttemptRow[]> {
  if (!deliveryIds.length) return []
  return db.select().from(webhookDeliveryAttempts)
    .where(and(eq(webhookDeliveryAttempts.tenantId, tenantId), inArray(webhookDeliveryAttempts.deliveryId, deliveryIds)))
    .orderBy(webhookDeliveryAttempts.at, webhookDeliveryAttempts.round, webhookDeliveryAttempts.attempt)
}

/** Platform-wide, for the platform admins' summary page: deliveries per status. */
export function deliveryCountsByStatus(db: Executor) {
  return db.select({ status: webhookDeliveries.status, n: sql<number>`count(*)` }).from(webhookDeliveries).groupBy(webhookDeliveries.status)
}

/** Platform-wide, for the platform admins' summary page: the deliveries changed last. */
export function latestDeliveries(db: Executor, limit: number): Promise<DeliveryRow[]> {
  return db.select().from(webhookDeliveries).orderBy(desc(webhookDeliveries.updatedAt)).limit(limit)
}
