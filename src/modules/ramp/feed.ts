/**
 * The bank ramp's movements in the unified feed (`GET /v1/transactions/aggregated/`), given to
 * the transactions module as a `FeedSource` (src/services.ts): deposits to a virtual IBAN
 * (`in`) and payouts to a bank account (`out`), both environments. They are the fiat side, in
 * euro cents (`decimals: 2`); a payout's crypto leg is a send of the transactions module and
 * appears as its own item. Statuses in the feed's words: `pending`, `confirmed` (completed), `failed`.
 */
import type { Deps } from '../../deps'
import type { FeedFilter, FeedItemView, FeedSource } from '../../context'
import { iso } from '../../lib/clock'
import { isUuid } from '../../lib/ids'
import * as repo from './repo'

const FEED_STATUS: Record<string, string> = { pending: 'pending', processing: 'pending', completed: 'confirmed', failed: 'failed' }
/** The ramp statuses a feed status filter stands for (none for `awaiting_signature`). */
const statusesOf = (status: string | undefined) => (status ? Object.keys(FEED_STATUS).filter((s) => FEED_STATUS[s] === status) : undefined)

/** Exact decimal text to integer cents (the records keep at most 2 decimals). */
function cents(dec: string): string {
  const [i = '0', f = ''] = dec.split('.')
  return (BigInt(i) * 100n + BigInt((f + '00').slice(0, 2))).toString()
}

function fiatToken(currency: string) {
  return { address: null, symbol: currency, decimals: 2 }
}

function depositItem(d: repo.DepositFeedRow): FeedItemView {
  return {
    id: `ramp:deposit:${d.id}`, kind: 'deposit', direction: 'in', status: FEED_STATUS[d.status] ?? 'pending', chain: d.chain ?? '', isTestnet: d.environment === 'sandbox',
    amount: cents(d.fiatAmount), token: fiatToken(d.fiatCurrency), counterparty: null, txHash: null, walletId: d.walletId, simulation: false,
    createdAt: iso(d.createdAt), updatedAt: iso(d.updatedAt),
  }
}

function payoutItem(p: repo.PayoutRow): FeedItemView {
  return {
    id: `ramp:payout:${p.id}`, kind: 'payout', direction: 'out', status: FEED_STATUS[p.status] ?? 'pending', chain: p.chain, isTestnet: p.environment === 'sandbox',
    amount: cents(p.fiatAmount), token: fiatToken(p.fiatCurrency), counterparty: null, txHash: p.txHash, walletId: p.walletId, simulation: false,
    createdAt: iso(p.createdAt), updatedAt: iso(p.updatedAt),
  }
}

export function rampFeedSource(deps: Deps): FeedSource {
  return {
    prefix: 'ramp:',
    async list(tenantId: string, userId: string, filter: FeedFilter, take: number) {
      const f = { walletId: filter.walletId, chain: filter.chain, statuses: statusesOf(filter.status), environment: filter.testnetOnly ? 'sandbox' as const : undefined }
      if (f.statuses && !f.statuses.length) return { items: [], total: 0 }
      const db = deps.database.db
      const [deposits, payouts] = await Promise.all([repo.depositsForFeed(db, tenantId, userId, f, take), repo.payoutsForFeed(db, tenantId, userId, f, take)])
      return { items: [...deposits.rows.map(depositItem), ...payouts.rows.map(payoutItem)], total: deposits.total + payouts.total }
    },
    async item(tenantId: string, userId: string, id: string) {
      const m = /^(deposit|payout):(.+)$/.exec(id)
      if (!m || !isUuid(m[2]!)) return null
      const db = deps.database.db
      if (m[1] === 'deposit') {
        const d = await repo.depositForFeed(db, tenantId, userId, m[2]!)
        return d ? depositItem(d) : null
      }
      const p = await repo.payoutForFeed(db, tenantId, userId, m[2]!)
      return p ? payoutItem(p) : null
    },
  }
}
