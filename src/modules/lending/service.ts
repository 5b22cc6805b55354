/** Reads of the lending group: the caller's positions and a reserve's supply-rate history. */
import type { Hex } from 'viem'
import type { Ctx } from '../../context'
import { BadRequestError } from '../../lib/errors'
import { iso } from '../../lib/clock'
import { tenantOf } from '../tenants'
import { activeTokens, chainByFamily, namedChain } from '../tokens'
import { wallets as walletVerbs } from '../wallets'
import type { PositionsQuery, RateHistoryQuery } from './model'
import { requirePool } from './pools'
import { apyText, aprText } from './rates'
import { listRateSamples } from './repo'
import { marketFor, reserveOf } from './reserves'

const rateView = (rate: bigint) => ({ liquidityRate: rate.toString(), supplyApr: aprText(rate), supplyApy: apyText(rate) })

export async function positions(ctx: Ctx, query: PositionsQuery) {
  const tenant = tenantOf(ctx)
  const wallets = query.walletId ? [await walletVerbs.ownWallet(ctx, query.walletId)] : (await walletVerbs.listWallets(ctx, { limit: 1000, offset: 0 })).rows
  const out = []
  for (const w of wallets) {
    const chain = chainByFamily(w.chain)
    if (chain?.family !== 'evm') {
      if (query.walletId) throw new BadRequestError(`Aave is on EVM chains; this wallet is on ${w.chain}`, { code: 'AAVE_NETWORK_UNSUPPORTED' })
      continue
    }
    const network = w.isTestnet ? chain.testnet : chain.mainnet
    if (query.walletId) await requirePool(ctx.deps.config, network.id)
    const m = await marketFor(ctx.deps, tenant.id, tenant.settings, w.chain, w.isTestnet)
    if (!m) continue
    const account = await ctx.deps.chain.guard(m.endpoint, 'aave account', () => m.rpc.userAccountData(m.pool, w.address as Hex))
    const reserves = []
    for (const token of activeTokens(tenant.settings, chain, network)) {
      if (!token.address) continue
      const r = await reserveOf(ctx.deps, m, token.address)
      if (!r.listed) continue
      const balance = await ctx.deps.chain.guard(m.endpoint, 'aave aToken balance', () => m.rpc.tokenBalance(r.aTokenAddress, w.address as Hex))
      if (balance === 0n) continue
      reserves.push({ asset: token.address, symbol: token.symbol, decimals: token.decimals, aTokenAddress: r.aTokenAddress, aTokenBalance: balance.toString(), ...rateView(r.currentLiquidityRate) })
    }
    out.push({
      walletId: w.id, address: w.address, chain: w.chain, isTestnet: w.isTestnet, network: network.id, pool: m.pool,
      account: Object.fromEntries(Object.entries(account).map(([k, v]) => [k, (v as bigint).toString()])) as Record<keyof typeof account, string>,
      reserves,
    })
  }
  return { positions: out }
}

export async function rateHistory(ctx: Ctx, query: RateHistoryQuery) {
  const tenant = tenantOf(ctx)
  const named = namedChain(query.chain)
  const chain = named && chainByFamily(named.family)
  if (!chain || chain.family !== 'evm') throw new BadRequestError(`Unsupported chain: ${query.chain}`, { code: 'AAVE_NETWORK_UNSUPPORTED' })
  const isTestnet = named.isTestnet ?? query.isTestnet ?? false
  const network = isTestnet ? chain.testnet.id : chain.mainnet.id
  await requirePool(ctx.deps.config, network)
  const m = (await marketFor(ctx.deps, tenant.id, tenant.settings, chain.id, isTestnet))!
  const from = query.from ? Date.parse(query.from) : undefined
  const to = query.to ? Date.parse(query.to) : undefined
  if (from !== undefined && to !== undefined && from > to) throw new BadRequestError('`from` is after `to`')
  const r = await reserveOf(ctx.deps, m, query.asset)
  if (!r.listed) throw new BadRequestError(`The Aave pool on ${network} does not list ${query.asset} as a reserve`, { code: 'AAVE_RESERVE_NOT_LISTED' })
  const rows = await listRateSamples(ctx.deps.database.db, tenant.id, network, query.asset.toLowerCase(), { from, to }, query.limit ?? 100)
  return {
    chain: chain.id, isTestnet, network, asset: query.asset, pool: m.pool,
    current: { ...rateView(r.currentLiquidityRate), readAt: iso(ctx.deps.clock.now()) },
    samples: rows.map((s) => ({ sampledAt: iso(s.sampledAt), ...rateView(BigInt(s.liquidityRate)) })),
  }
}
