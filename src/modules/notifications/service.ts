/** The inbox verbs: the caller's own notifications only, rendered in the caller's language. */
import type { Ctx } from '../../context'
import { ForbiddenError } from '../../lib/errors'
import { iso } from '../../lib/clock'
import type { InboxQuery, MarkReadBody } from './model'
import type { NotificationKind } from './notify'
import * as repo from './repo'
import { localeOf, renderNotification } from './templates'

/** Notifications belong to tenant users; a platform admin (no tenant) has none. */
function tenantOf(ctx: Ctx): string {
  if (!ctx.actor.tenantId) throw new ForbiddenError('Notifications belong to tenant users; platform admins have none')
  return ctx.actor.tenantId
}

export async function inbox(ctx: Ctx, query: InboxQuery) {
  const tenantId = tenantOf(ctx)
  const locale = localeOf(ctx.actor.user.locale)
  const { rows, total, unread } = await repo.listForUser(ctx.deps.database.db, tenantId, ctx.actor.userId, query.limit ?? 20, query.skip ?? 0)
  return {
    notifications: rows.map((n) => ({
      id: n.id,
      kind: n.kind as NotificationKind,
      ...renderNotification(n.kind, n.data, locale),
      data: n.data,
      readAt: n.readAt === null ? null : iso(n.readAt),
      createdAt: iso(n.createdAt),
    })),
    total,
    unread,
  }
}

export async function markRead(ctx: Ctx, body: MarkReadBody) {
  const tenantId = tenantOf(ctx)
  const { deps, actor } = ctx
  if (body.ids && !body.ids.length) return { updated: 0 }
  const updated = await deps.database.write((tx) => repo.markRead(tx, tenantId, actor.userId, body.ids, deps.clock.now()))
  return { updated }
}
