/**
 * `POST /v1/swap/quote`: the spec's rules 1 to 4, the aggregator's quote, its refusals,
 * the allowance, gas and balance read from the source chain, and the quote kept (per
 * user and tenant, 10 minutes) for `POST /v1/swap/execute`.
 */
import { formatUnits, type Hex } from 'viem'
import type { LiFiStep } from '../../adapters/swap-aggregator/port'
import type { Ctx } from '../../context'
import { BadRequestError } from '../../lib/errors'
import { tenantOf } from '../tenants'
import { endpointFor, type ChainDef } from '../tokens'
import { wallets } from '../wallets'
import { aggregatorQuote, aggregatorTestnets } from './aggregator'
import { aggregatorChainId, answeredChainId, registryToken, sameToken, swapChain } from './chains'
import { destinationAddress } from './destination'
import { gaslessQuoteBlock } from './gasless'
import type { QuoteBody } from './model'
import { deleteExpiredQuotes, saveQuote } from './repo'


/** Expired quotes are deleted by the process at most this often (deleteExpiredQuotes). */
const SWEEP_EVERY_MS = 60_000
let nextSweep = 0

export const QUOTE_TTL_MS = 10 * 60_000

const big = (v: string | undefined | null) => {
  try {
    return v === undefined || v === null || v === '' ? null : BigInt(v)
  } catch {
    return null
  }
}

/**
 * Why a route is not the one transaction execute sends (rule 3's "second signature"), or null: it
 * carries no transaction; it carries typed data to sign (on the destination chain, or, as execute
 * signs nothing else either, on the source chain); or an included step on the destination chain
 * carries its own transaction or typed data (a second transaction there).
 */
function secondSignature(step: LiFiStep): string | null {
  const from = step.action.fromChainId
  const dest = step.action.toChainId
  const onDest = (chainId: unknown) => dest !== from && Number(chainId) === dest
  if (step.typedData?.some((d) => onDest(d.domain?.chainId))) return 'this route needs a second signature on the destination chain'
  if (!step.transactionRequest?.data) return 'this route is a message to sign, not a transaction'
  if (step.typedData?.length) return 'this route needs a typed-data signature besides its transaction'
  const second = (step.includedSteps ?? []).some((s) => s.action.fromChainId === dest && dest !== from && (s.transactionRequest !== undefined || (s.typedData?.length ?? 0) > 0))
  return second ? 'this route needs a second signature on the destination chain' : null
}

/**
 * A testnet quote's refusal, or nothing: the supported testnet chain ids are the aggregator's
 * (aggregatorTestnets): none for LI.FI, so every `isTestnet: true` quote answers 400 there; the
 * devnet's testnets for the sandbox aggregator.
 */
function refuseTestnet(supported: readonly number[], chains: ChainDef[]) {
  if (supported.length === 0) throw new BadRequestError('Swaps on testnets are not supported: the aggregator supports no testnet chain ids (isTestnet: true)')
  const missing = [...new Set(chains.map((c) => answeredChainId(c, true)))].filter((id) => !supported.includes(id))
  if (missing.length === 0) return
  throw new BadRequestError(`Swaps on testnets are not supported for chain id ${missing.join(', ')}: the aggregator supports the testnet chain ids ${supported.join(', ')} (isTestnet: true)`)
}

export async function quoteSwap(ctx: Ctx, input: QuoteBody) {
  const isTestnet = input.isTestnet === true
  const testnets = aggregatorTestnets(ctx.deps)
  if (isTestnet) refuseTestnet(testnets, [])
  const tenant = tenantOf(ctx)
  const w = await wallets.ownWallet(ctx, input.walletId)
  const from = swapChain(tenant.settings, input.fromChain)
  const to = swapChain(tenant.settings, input.toChain)
  if (isTestnet) refuseTestnet(testnets, [from, to])
  if (w.isTestnet !== isTestnet || w.chain !== from.id) {
    const net = isTestnet ? 'testnet' : 'mainnet'
    throw new BadRequestError(`Network mismatch: the wallet is on ${w.isTestnet ? `${w.chain} testnet` : w.chain} and the swap starts on ${from.id} ${net}`)
  }
  const fromToken = registryToken(tenant.settings, from, input.fromToken, isTestnet)
  const toToken = registryToken(tenant.settings, to, input.toToken, isTestnet)
  const receiver = await destinationAddress(ctx, tenant.id, w, from, to, input.toAddress, isTestnet)
  const step = await aggregatorQuote(ctx.deps, {
    fromChain: aggregatorChainId(from, isTestnet), toChain: aggregatorChainId(to, isTestnet), fromToken: input.fromToken, toToken: input.toToken,
    fromAmount: input.fromAmount, fromAddress: w.address, toAddress: receiver, slippage: (input.slippage ?? 0.5) / 100,
  })
  if (!sameToken(to, step.action.toToken.address, input.toToken)) {
    // the token is named as the spec asks, but only with what looks like a symbol and an address: never free text of the aggregator's
    const symbol = /^[A-Za-z0-9.+_-]{1,20}$/.test(String(step.action.toToken.symbol)) ? step.action.toToken.symbol : 'another token'
    const address = /^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$/.test(String(step.action.toToken.address)) ? ` (${step.action.toToken.address})` : ''
    throw new BadRequestError(`No direct route: the aggregator would deliver ${symbol}${address} instead of ${input.toToken}`, { code: 'SWAP_NO_DIRECT_ROUTE' })
  }
  const why = secondSignature(step)
  if (why) throw new BadRequestError(`No single-transaction route: ${why}`, { code: 'SWAP_NEEDS_DESTINATION_SIGNATURE' })
  const estimate = step.estimate
  const req = step.transactionRequest!
  const evm = from.family === 'evm'
  const approvalAddress = evm && !fromToken.native && estimate?.approvalAddress ? estimate.approvalAddress : null
  const gasLimit = big(req.gasLimit as string | undefined)
  const gas = gasLimit ?? (estimate?.gasCosts ?? []).reduce((s, g) => s + (big(g.estimate) ?? 0n), 0n)
  const value = big(req.value as string | undefined) ?? 0n
  const chainReads = evm ? await readSourceChain(ctx, tenant.settings, from, isTestnet, w.address as Hex, fromToken.native ? null : input.fromToken as Hex, approvalAddress as Hex | null) : null
  const now = ctx.deps.clock.now()
  const transaction = { to: String(req.to ?? ''), data: String(req.data), value: value.toString(), gasLimit: gasLimit?.toString() ?? null }
  await ctx.deps.database.write(async (tx) => {
    // expired quotes are forgotten once a minute, not on every quote: they already answer as expired
    if (now >= nextSweep) {
      nextSweep = now + SWEEP_EVERY_MS
      await deleteExpiredQuotes(tx, now)
    }
    await saveQuote(tx, {
      tenantId: tenant.id, userId: ctx.actor.userId, id: step.id, walletId: w.id, fromChain: from.id, toChain: to.id,
      fromToken: fromToken.native ? null : input.fromToken, fromTokenSymbol: fromToken.symbol, fromTokenDecimals: fromToken.decimals,
      toToken: input.toToken, toTokenSymbol: toToken.symbol, toTokenDecimals: toToken.decimals,
      fromAmount: estimate?.fromAmount ?? step.action.fromAmount, toAmount: estimate?.toAmount ?? '0', toAmountMin: estimate?.toAmountMin ?? '0',
      toAddress: receiver, tool: step.tool, approvalAddress, transaction, expiresAt: now + QUOTE_TTL_MS, createdAt: now,
    })
  })
  const native = from.nativeToken
  const fmt = (v: bigint) => formatUnits(v, native.decimals)
  const gasCost = chainReads?.maxFeePerGas != null && gas > 0n ? gas * chainReads.maxFeePerGas : null
  const total = gasCost === null ? null : gasCost + value
  return {
    quoteId: step.id, isTestnet, sourceChainType: from.family, fromChain: from.id, toChain: to.id,
    fromChainId: answeredChainId(from, isTestnet), toChainId: answeredChainId(to, isTestnet),
    fromToken: tokenView(fromToken), toToken: tokenView(toToken),
    fromAmount: estimate?.fromAmount ?? step.action.fromAmount, toAmount: estimate?.toAmount ?? '0', toAmountMin: estimate?.toAmountMin ?? '0',
    tool: step.tool, approvalAddress, needsApproval: chainReads?.allowance === 0n, estimatedGas: gas.toString(),
    ...(gasCost !== null && total !== null
      ? { estimatedGasCostWei: gasCost.toString(), estimatedGasCostNative: fmt(gasCost), nativeTokenSymbol: native.symbol, transactionValueNative: fmt(value), totalCostRequired: fmt(total) }
      : {}),
    ...(chainReads?.balance != null ? { nativeTokenBalance: fmt(chainReads.balance), sufficientBalance: chainReads.balance >= (total ?? value) } : {}),
    executionTime: estimate?.executionDuration ?? 0, transactionData: transaction, requiresDestinationSignature: false as const,
    ...(await gaslessQuoteBlock(ctx, tenant.settings, { fromChain: from.id, toChain: to.id, isTestnet, fromToken: input.fromToken, toToken: input.toToken, owner: w.address })),
  }
}

const tokenView = (tk: { address: string; symbol: string; decimals: number; name: string }) => ({ address: tk.address, symbol: tk.symbol, decimals: tk.decimals, name: tk.name })

/**
 * The allowance (its failure is the spec's 400 `Failed to check token allowance`), and the
 * max fee per gas and native balance (either left out when the node does not answer).
 */
async function readSourceChain(ctx: Ctx, settings: Parameters<typeof endpointFor>[1], chain: ChainDef, isTestnet: boolean, owner: Hex, token: Hex | null, spender: Hex | null) {
  const { endpoint } = endpointFor(ctx.deps.config, settings, chain.id, isTestnet)
  const rpc = await ctx.deps.chain.evmRpc(endpoint)
  const guard = <T>(what: string, fn: () => Promise<T>) => ctx.deps.chain.guard(endpoint, what, fn)
  let allowance: bigint | null = null
  if (token && spender) {
    allowance = await guard('allowance', () => rpc.allowance(token, owner, spender)).catch(() => {
      throw new BadRequestError('Failed to check token allowance', { code: 'SWAP_ALLOWANCE_CHECK_FAILED' })
    })
  }
  const [maxFeePerGas, balance] = await Promise.all([
    guard('fees', async () => {
      const [base, tip] = await Promise.all([rpc.latestBaseFee(), rpc.maxPriorityFeePerGas().catch(() => 1_000_000_000n)])
      return (base ?? 0n) * 2n + tip
    }).catch(() => null),
    guard('balance', () => rpc.balance(owner)).catch(() => null),
  ])
  return { allowance, maxFeePerGas, balance }
}
