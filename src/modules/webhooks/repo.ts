/**
 * The webhook tables (webhooks, webhook_deliveries, webhook_delivery_attempts,
 * webhook_dev_routes): with repo-deliveries.ts (the deliveries and their attempts, which this
 * file hands on), the one file that touches them. Every function takes the tenant id first after the executor,
 * except the few marked platform-wide (the operators' summary page and `slipway reseal`).
 */
import { and, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { txReadOne } from '../../db/native-tx'
import { sealedTextColumn, type SealedColumn } from '../../db/sealed-columns'
import { secretAad } from './secrets'
import { webhookDevRoutes, webhooks, type WebhookEnvironment, type WebhookOwner } from './schema'

export type WebhookRow = typeof webhooks.$inferSelect
export type DevRouteRow = typeof webhookDevRoutes.$inferSelect
// the deliveries and their attempts: repo-deliveries.ts
export * from './repo-deliveries'

const platformWebhook = txReadOne((db, v: { tenantId: string; environment: WebhookEnvironment }) =>
  db.select().from(webhooks).where(and(eq(webhooks.tenantId, v.tenantId), eq(webhooks.owner, 'platform'), eq(webhooks.environment, v.environment))))

/** The tenant's platform webhook in that environment (never a group subscription); read natively inside a local transaction (every published event reads it). */
export async function findWebhook(db: Executor, tenantId: string, environment: WebhookEnvironment): Promise<WebhookRow | undefined> {
  return platformWebhook(db, { tenantId, environment })
}

/** One of the tenant's webhooks of that owner by id. */
export function findOwnedWebhook(db: Executor, tenantId: string, owner: WebhookOwner, id: string) {
  return db.select().from(webhooks).where(and(eq(webhooks.tenantId, tenantId), eq(webhooks.owner, owner), eq(webhooks.id, id))).get()
}

/** One page of the tenant's webhooks of that owner, newest first, and the total. */
export async function listOwnedWebhooks(db: Executor, tenantId: string, owner: WebhookOwner, limit: number, offset: number) {
  const where = and(eq(webhooks.tenantId, tenantId), eq(webhooks.owner, owner))
  const [rows, [count]] = await Promise.all([
    db.select().from(webhooks).where(where).orderBy(desc(webhooks.createdAt), desc(webhooks.id)).limit(limit).offset(offset),
    db.select({ n: sql<number>`count(*)` }).from(webhooks).where(where),
  ])
  return { rows, total: Number(count?.n ?? 0) }
}

/** The tenant's active webhooks of that owner (the fan-out of an event). */
export function activeOwnedWebhooks(db: Executor, tenantId: string, owner: WebhookOwner) {
  return db.select().from(webhooks).where(and(eq(webhooks.tenantId, tenantId), eq(webhooks.owner, owner), eq(webhooks.status, 'active')))
}

/** In one read: the platform's webhooks of `environments` (any status) and the active webhooks of `owner`. */
const eventWebhooksWhere = (tenantId: string, environments: WebhookEnvironment[], owner?: WebhookOwner) => {
  const platform = and(eq(webhooks.owner, 'platform'), inArray(webhooks.environment, environments))
  return and(eq(webhooks.tenantId, tenantId), owner ? or(platform, and(eq(webhooks.owner, owner), eq(webhooks.status, 'active'))) : platform)
}

export function eventWebhooks(db: Executor, tenantId: string, environments: WebhookEnvironment[], owner?: WebhookOwner) {
  return db.select().from(webhooks).where(eventWebhooksWhere(tenantId, environments, owner))
}

/** `eventWebhooks`' rows as one text (each one's id, status and event types, by id), NULL when none: see `eventWebhooksFingerprintOf`. */
export const eventWebhooksFingerprint = (tenantId: string, environments: WebhookEnvironment[], owner?: WebhookOwner): SQL =>
  sql`(SELECT group_concat(x, ',') FROM (SELECT ${webhooks.id} || ':' || ${webhooks.status} || ':' || ${webhooks.eventTypes} AS x FROM ${webhooks}
    WHERE ${eventWebhooksWhere(tenantId, environments, owner)} ORDER BY ${webhooks.id}))`

/** The same text from rows read (`eventWebhooks`), or null when none. */
export const eventWebhooksFingerprintOf = (rows: WebhookRow[]): string | null =>
  rows.length ? [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((w) => `${w.id}:${w.status}:${JSON.stringify(w.eventTypes)}`).join(',') : null

/** `owner` defaults to `platform`. */
export async function insertWebhook(db: Executor, tenantId: string, row: Omit<WebhookRow, 'tenantId' | 'owner'> & { owner?: WebhookOwner }) {
  await db.insert(webhooks).values({ ...row, tenantId })
}

export type WebhookChange = Partial<Pick<WebhookRow, 'url' | 'eventTypes' | 'status' | 'secretSealed' | 'secretHint'>> & { updatedAt: number }

export async function updateWebhook(db: Executor, tenantId: string, id: string, change: WebhookChange) {
  await db.update(webhooks).set(change).where(and(eq(webhooks.tenantId, tenantId), eq(webhooks.id, id)))
}

/** The sealed secret goes with the row. */
export async function deleteWebhook(db: Executor, tenantId: string, id: string) {
  await db.delete(webhooks).where(and(eq(webhooks.tenantId, tenantId), eq(webhooks.id, id)))
}

/** The tenant's development route for `host` (`slipway webhooks listen`), if any. */
export function findDevRoute(db: Executor, tenantId: string, host: string) {
  return db.select().from(webhookDevRoutes).where(and(eq(webhookDevRoutes.tenantId, tenantId), eq(webhookDevRoutes.host, host))).get()
}

/** The hosts the tenant has development routes for. */
export async function devRouteHosts(db: Executor, tenantId: string): Promise<string[]> {
  const rows = await db.select({ host: webhookDevRoutes.host }).from(webhookDevRoutes).where(eq(webhookDevRoutes.tenantId, tenantId))
  return rows.map((r) => r.host)
}

/** Stores the route, or re-points it (a new origin and restore address) when the tenant has one for that host. */
export async function upsertDevRoute(db: Executor, tenantId: string, route: Omit<DevRouteRow, 'tenantId'>) {
  await db.insert(webhookDevRoutes).values({ ...route, tenantId })
    .onConflictDoUpdate({ target: [webhookDevRoutes.tenantId, webhookDevRoutes.host], set: { origin: route.origin, restoreUrl: route.restoreUrl, createdAt: route.createdAt } })
}

/** Deletes the tenant's route for `host` when it still points at `origin` (another listener may have taken it over). */
export async function deleteDevRoute(db: Executor, tenantId: string, host: string, origin: string) {
  await db.delete(webhookDevRoutes).where(and(eq(webhookDevRoutes.tenantId, tenantId), eq(webhookDevRoutes.host, host), eq(webhookDevRoutes.origin, origin)))
}

/** Platform-wide, for `slipway reseal`: the webhook secrets (the platform's and the group subscriptions', one column). */
export const sealedColumns: SealedColumn[] = [
  sealedTextColumn({
    name: 'webhooks.secret_sealed',
    table: webhooks,
    id: webhooks.id,
    value: webhooks.secretSealed,
    tenantId: webhooks.tenantId,
    aad: (r) => secretAad(r.tenantId!, r.id),
  }),
]
