/**
 * The unified feed: every movement of the user as one item shape. Today its sources are
 * the transactions table (sends and swaps); bank ramp movements join when that module
 * lands, by adding a source here and merging by `createdAt`.
 */
import { NotFoundError } from '../../http/errors'
import type { Ctx } from '../../context'
import type { ListQuery } from './model'
import { listTransactionRows, ownTransaction, pageOf } from './service'
import { feedItem } from './view'

export async function aggregatedFeed(ctx: Ctx, query: ListQuery) {
  const { rows, total, page, limit } = await listTransactionRows(ctx, query)
  return pageOf(rows.map(feedItem), total, page, limit)
}

export async function aggregatedItem(ctx: Ctx, id: string) {
  const m = /^(?:tx:)?([0-9a-fA-F-]{36})$/.exec(id)
  if (!m) throw new NotFoundError('Transaction not found')
  return feedItem(await ownTransaction(ctx, m[1]!))
}
