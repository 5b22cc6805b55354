/** The only file that touches the `notifications` table. Tenant id first after the executor, always in the filter. */
import { and, count, desc, eq, inArray, isNull, lte, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client'
import { notifications } from './schema'

export type NotificationRow = typeof notifications.$inferSelect

export async function insertNotification(db: Executor, tenantId: string, row: Omit<NotificationRow, 'tenantId'>) {
  await db.insert(notifications).values({ ...row, tenantId })
}

export const findNotification = (db: Executor, tenantId: string, id: string) =>
  db.select().from(notifications).where(and(eq(notifications.tenantId, tenantId), eq(notifications.id, id))).get()

/**
 * One page of a user's notifications, newest first (rows written in the same millisecond in
 * the order they were written: SQLite's rowid grows with each insert), with the user's total
 * and unread counts.
 */
export async function listForUser(db: Executor, tenantId: string, userId: string, limit: number, skip: number) {
  const mine = and(eq(notifications.tenantId, tenantId), eq(notifications.userId, userId))
  const [rows, [all], [unread]] = await Promise.all([
    db.select().from(notifications).where(mine).orderBy(desc(notifications.createdAt), desc(sql`rowid`)).limit(limit).offset(skip).all(),
    db.select({ n: count() }).from(notifications).where(mine).all(),
    db.select({ n: count() }).from(notifications).where(and(mine, isNull(notifications.readAt))).all(),
  ])
  return { rows, total: Number(all?.n ?? 0), unread: Number(unread?.n ?? 0) }
}

/**
 * Marks a user's unread notifications read at `now`: those among `ids`, or, without `ids`,
 * every one created up to `now`. Ids of other users or tenants match nothing. Answers how
 * many changed.
 */
export async function markRead(db: Executor, tenantId: string, userId: string, ids: string[] | undefined, now: number): Promise<number> {
  const which = ids ? inArray(notifications.id, ids) : lte(notifications.createdAt, now)
  const changed = await db.update(notifications).set({ readAt: now })
    .where(and(eq(notifications.tenantId, tenantId), eq(notifications.userId, userId), isNull(notifications.readAt), which))
    .returning({ id: notifications.id })
  return changed.length
}

/** Records that the push of a notification was handed to FCM; false when it already was. */
export async function markPushed(db: Executor, tenantId: string, id: string, now: number): Promise<boolean> {
  const changed = await db.update(notifications).set({ pushedAt: now })
    .where(and(eq(notifications.tenantId, tenantId), eq(notifications.id, id), isNull(notifications.pushedAt)))
    .returning({ id: notifications.id })
  return changed.length === 1
}
