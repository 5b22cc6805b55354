/**
 * The unified feed: every movement of the user as one item shape, newest first. Its own
 * source is the transactions table (sends and swaps); other modules add theirs as
 * `FeedSource`s (the bank ramp's deposits and payouts), wired in src/services.ts. A page is
 * merged from the newest `page × limit` items of each source.
 */
import { NotFoundError } from '../../lib/errors'
import type { Ctx, FeedItemView, FeedSource } from '../../context'
import { namedChain } from '../tokens'
import type { ListQuery } from './model'
import { listTransactionRows, ownTransaction, pageOf } from './service'
import { feedItem } from './view'

const newestFirst = (a: FeedItemView, b: FeedItemView) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1)

export async function aggregatedFeed(ctx: Ctx, query: ListQuery, sources: FeedSource[] = []) {
  const tenantId = ctx.actor.tenantId
  if (!sources.length || !tenantId) {
    const { rows, total, page, limit } = await listTransactionRows(ctx, query)
    return pageOf(rows.map(feedItem), total, page, limit)
  }
  const page = query.page ?? 1
  const limit = query.limit ?? 20
  const take = page * limit
  // as the transactions' own filter: a family id names both networks, a testnet's registry id that testnet only
  const named = query.chain ? namedChain(query.chain) : undefined
  const filter = { walletId: query.walletId, chain: named?.family ?? query.chain?.toLowerCase(), testnetOnly: named?.isTestnet === true, status: query.status }
  const [own, ...others] = await Promise.all([
    listTransactionRows(ctx, { ...query, page: 1, limit: take }),
    ...sources.map((s) => s.list(tenantId, ctx.actor.userId, filter, take)),
  ])
  const items: FeedItemView[] = [...own!.rows.map(feedItem), ...others.flatMap((o) => o.items)].sort(newestFirst)
  const total = own!.total + others.reduce((n, o) => n + o.total, 0)
  return pageOf(items.slice(take - limit, take), total, page, limit)
}

export async function aggregatedItem(ctx: Ctx, id: string, sources: FeedSource[] = []) {
  const source = sources.find((s) => id.startsWith(s.prefix))
  if (source) {
    const item = ctx.actor.tenantId ? await source.item(ctx.actor.tenantId, ctx.actor.userId, id.slice(source.prefix.length)) : null
    if (!item) throw new NotFoundError('Transaction not found')
    return item
  }
  const m = /^(?:tx:)?([0-9a-fA-F-]{36})$/.exec(id)
  if (!m) throw new NotFoundError('Transaction not found')
  return feedItem(await ownTransaction(ctx, m[1]!))
}
