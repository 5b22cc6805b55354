/**
 * Balances read from the chain through the chain adapter, through the app's BalanceCache
 * (balance-cache.ts). Amounts are exact: the smallest
 * unit as an integer string (`rawBalance`) and the same amount formatted with the
 * token's decimals (`balance`).
 */
import { formatUnits } from 'viem'
import type { Deps } from '../../deps'
import { iso } from '../../lib/clock'
import type { Ctx } from '../../context'
import { chainByFamily, endpointFor } from '../tokens'
import type { StoredSettings } from '../tenants'
import { AppError, ServiceUnavailableError } from '../../lib/errors'
import type { BalanceCache } from './balance-cache'
import * as repo from './repo'
import type { WalletRow } from './schema'
import { tenantOf } from '../tenants'
import { ownWallet } from './service'

const amount = (raw: bigint, decimals: number) => ({ balance: formatUnits(raw, decimals), rawBalance: raw.toString(), decimals })

/**
 * One wallet's native and token balances (every token active for the tenant on its network).
 * Also read by the portfolio module, for its daily snapshots and a user's current value.
 * Throws the chain adapter's AppError when the network cannot be read.
 */
export async function readWallet(deps: Deps, cache: BalanceCache, settings: StoredSettings, w: WalletRow) {
  const chain = chainByFamily(w.chain)!
  const { endpoint, tokens } = endpointFor(deps.config, settings, w.chain, w.isTestnet)
  const contracts = tokens.filter((t) => t.address !== null)
  const key = `${endpoint.rpcUrl}|${w.addressKey}|${contracts.map((t) => t.address).join(',')}`
  const hit = await cache.get(key, () => deps.chain.balances(endpoint, w.address, contracts.map((t) => t.address!)))
  return {
    walletId: w.id,
    address: w.address,
    chain: w.chain,
    isTestnet: w.isTestnet,
    nativeBalance: { ...amount(hit.native, chain.nativeToken.decimals), symbol: chain.nativeToken.symbol, name: chain.nativeToken.name },
    tokens: contracts.map((t, i) => ({ symbol: t.symbol, name: t.name, address: t.address!, ...amount(hit.tokens[i] ?? 0n, t.decimals) })),
    lastUpdated: iso(hit.at),
  }
}

export async function walletBalance(ctx: Ctx, walletId: string, cache: BalanceCache) {
  const w = await ownWallet(ctx, walletId)
  const tenant = tenantOf(ctx)
  return readWallet(ctx.deps, cache, tenant.settings, w)
}

/**
 * Every wallet of the caller, summed per chain and network, with totals per token
 * symbol across chains (exact, at the largest decimals seen). A network whose RPC is
 * down is listed under `unavailable` and left out of the sums; when every network is
 * down the answer is 503.
 */
export async function aggregateBalances(ctx: Ctx, cache: BalanceCache) {
  const tenant = tenantOf(ctx)
  const { rows } = await repo.listUserWallets(ctx.deps.database.db, tenant.id, ctx.actor.userId)
  const groups = new Map<string, {
    chain: string
    isTestnet: boolean
    walletIds: string[]
    native: { symbol: string; decimals: number; raw: bigint }
    tokens: Map<string, { symbol: string; name: string; address: string; decimals: number; raw: bigint }>
    lastUpdated: string
  }>()
  const unavailable: Array<{ chain: string; isTestnet: boolean; message: string }> = []
  const results = await Promise.allSettled(rows.map((w) => readWallet(ctx.deps, cache, tenant.settings, w)))
  results.forEach((r, i) => {
    const w = rows[i]!
    if (r.status === 'rejected') {
      if (!(r.reason instanceof AppError)) throw r.reason
      if (!unavailable.some((u) => u.chain === w.chain && u.isTestnet === w.isTestnet)) unavailable.push({ chain: w.chain, isTestnet: w.isTestnet, message: r.reason.message })
      return
    }
    const b = r.value
    const k = `${w.chain}|${w.isTestnet}`
    let g = groups.get(k)
    if (!g) {
      g = {
        chain: w.chain,
        isTestnet: w.isTestnet,
        walletIds: [],
        native: { symbol: b.nativeBalance.symbol, decimals: b.nativeBalance.decimals, raw: 0n },
        tokens: new Map(),
        lastUpdated: b.lastUpdated,
      }
      groups.set(k, g)
    }
    g.walletIds.push(w.id)
    g.native.raw += BigInt(b.nativeBalance.rawBalance)
    if (b.lastUpdated < g.lastUpdated) g.lastUpdated = b.lastUpdated
    for (const t of b.tokens) {
      const cur = g.tokens.get(t.address) ?? { symbol: t.symbol, name: t.name, address: t.address, decimals: t.decimals, raw: 0n }
      cur.raw += BigInt(t.rawBalance)
      g.tokens.set(t.address, cur)
    }
  })
  if (rows.length && !groups.size && unavailable.length) throw unavailableAll()
  const totals = new Map<string, { symbol: string; decimals: number; raw: bigint }>()
  const addTotal = (symbol: string, decimals: number, raw: bigint) => {
    const cur = totals.get(symbol) ?? { symbol, decimals, raw: 0n }
    const scale = Math.max(cur.decimals, decimals)
    cur.raw = cur.raw * 10n ** BigInt(scale - cur.decimals) + raw * 10n ** BigInt(scale - decimals)
    cur.decimals = scale
    totals.set(symbol, cur)
  }
  const chains = [...groups.values()].map((g) => {
    if (!g.isTestnet) addTotal(g.native.symbol, g.native.decimals, g.native.raw)
    const tokens = [...g.tokens.values()].map((t) => {
      if (!g.isTestnet) addTotal(t.symbol, t.decimals, t.raw)
      return { symbol: t.symbol, name: t.name, address: t.address, ...amount(t.raw, t.decimals) }
    })
    return {
      chain: g.chain,
      isTestnet: g.isTestnet,
      walletCount: g.walletIds.length,
      nativeBalance: { symbol: g.native.symbol, ...amount(g.native.raw, g.native.decimals) },
      tokens,
      lastUpdated: g.lastUpdated,
    }
  })
  return {
    chains,
    total: [...totals.values()].map((t) => ({ symbol: t.symbol, ...amount(t.raw, t.decimals) })),
    unavailable,
    walletCount: rows.length,
  }
}

function unavailableAll() {
  return new ServiceUnavailableError('The networks of these wallets are temporarily unavailable')
}
