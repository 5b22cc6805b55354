/** Paging shared by the repo's lists: a page of rows and the total they are from. */
import { sql, type SQL } from 'drizzle-orm'
import type { Executor } from '../../../db/client'
import type { apAgents, apApiKeys, apApprovals, apAuditLog, apExecutions, apMerchants, apPolicies, apShoppers } from '../schema'

export async function paged<T>(rows: Promise<T[]>, count: Promise<Array<{ n: number }>>) {
  const [data, [c]] = await Promise.all([rows, count])
  return { rows: data, total: Number(c?.n ?? 0) }
}

export const countOf = (
  db: Executor,
  table: typeof apAgents | typeof apPolicies | typeof apMerchants | typeof apApiKeys | typeof apAuditLog | typeof apExecutions | typeof apApprovals | typeof apShoppers,
  where: SQL | undefined,
) =>
  db.select({ n: sql<number>`count(*)` }).from(table).where(where)
