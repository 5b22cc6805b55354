/**
 * Holdings: what a wallet holds of each token (native coin included), read from its network
 * or from its last snapshot, and their value at given prices.
 */
import type { readWallet } from '../wallets'
import { coinIdOf } from './coins'
import type { Price } from './prices'
import type { SnapshotRow } from './schema'
import { valueOf } from './values'

export interface Holding {
  walletId: string
  chain: string
  /** contract or mint, or `native` */
  token: string
  symbol: string
  decimals: number
  /** smallest unit */
  amount: bigint
  coinId: string | null
}

export const NATIVE = 'native'

/**
 * A wallet's holdings from its balances as the wallets module reads them: the native coin
 * always (0 included, so a wallet recorded empty has its row that day, and its last record is
 * never an older, fuller one), every other token only when held.
 */
export function holdingsOf(b: Awaited<ReturnType<typeof readWallet>>): Holding[] {
  const out: Holding[] = []
  const native = BigInt(b.nativeBalance.rawBalance)
  out.push({ walletId: b.walletId, chain: b.chain, token: NATIVE, symbol: b.nativeBalance.symbol, decimals: b.nativeBalance.decimals, amount: native, coinId: coinIdOf(b.chain, null) })
  for (const tk of b.tokens) {
    const amount = BigInt(tk.rawBalance)
    if (amount > 0n) out.push({ walletId: b.walletId, chain: b.chain, token: tk.address, symbol: tk.symbol, decimals: tk.decimals, amount, coinId: coinIdOf(b.chain, tk.address) })
  }
  return out
}

/** The holdings a snapshot recorded. */
export function holdingsOfSnapshot(rows: SnapshotRow[]): Holding[] {
  return rows.map((r) => ({ walletId: r.walletId, chain: r.chain, token: r.token, symbol: r.symbol, decimals: r.decimals, amount: BigInt(r.amount), coinId: r.coinId }))
}

export interface Valuation {
  /** at 18 decimals of the currency */
  eur: bigint
  usd: bigint
  /** holdings with a balance left out for want of a price */
  unpriced: Holding[]
  /** the oldest price used (Unix ms); null when no price was used */
  oldestPriceAt: number | null
}

/** The total value of `holdings` at `prices` (by coin id). */
export function valueHoldings(holdings: Holding[], prices: ReadonlyMap<string, Price>): Valuation {
  const v: Valuation = { eur: 0n, usd: 0n, unpriced: [], oldestPriceAt: null }
  for (const h of holdings) {
    const p = h.coinId ? prices.get(h.coinId) : undefined
    if (!p) {
      if (h.amount > 0n) v.unpriced.push(h)
      continue
    }
    v.eur += valueOf(h.amount, h.decimals, p.eur)
    v.usd += valueOf(h.amount, h.decimals, p.usd)
    v.oldestPriceAt = v.oldestPriceAt === null ? p.asOf : Math.min(v.oldestPriceAt, p.asOf)
  }
  return v
}
