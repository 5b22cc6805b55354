/**
 * Balances read from a chain, kept for BALANCE_CACHE_TTL_MS on the app clock per RPC
 * address, wallet address and token set, so a screen that polls does not hammer a public
 * RPC. One per app, made in src/services.ts; it holds at most 10,000 entries, oldest out first.
 */
import type { Clock } from '../../lib/clock'

export const BALANCE_CACHE_TTL_MS = 15_000
const MAX_ENTRIES = 10_000

export interface CachedBalances {
  at: number
  native: bigint
  tokens: bigint[]
}

export class BalanceCache {
  private entries = new Map<string, CachedBalances>()
  constructor(private clock: Clock) {}

  /** The cached read under `key` while fresh, otherwise `read()`'s answer, kept. */
  async get(key: string, read: () => Promise<{ native: bigint; tokens: bigint[] }>): Promise<CachedBalances> {
    const now = this.clock.now()
    const hit = this.entries.get(key)
    if (hit && now - hit.at < BALANCE_CACHE_TTL_MS) return hit
    const raw = await read()
    const fresh = { at: now, native: raw.native, tokens: raw.tokens }
    this.entries.set(key, fresh)
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!)
    return fresh
  }
}
