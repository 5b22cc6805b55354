/**
 * Approvals, execution and broadcast of swaps. Nothing here signs: every transaction goes
 * through the transactions module's `createEvmCall` (custodial wallets: nonce lane, holds
 * of the spent token and the gas, the status job; non-custodial: prepared for client
 * signing) and its broadcast, so swaps and approvals show in history and the unified feed.
 */
import { encodeFunctionData, erc20Abi, type Hex } from 'viem'
import type { Ctx } from '../../context'
import { BadRequestError, NotFoundError } from '../../lib/errors'
import { isUuid } from '../../lib/ids'
import { tenantOf } from '../tenants'
import { chainByFamily, endpointFor } from '../tokens'
import { transactions, preparedNotFound, findUserPrepared, findUserTransaction } from '../transactions'
import { wallets } from '../wallets'
import type { AllowanceBody, ApproveBody, ExecuteBody, SwapBroadcastBody } from './model'
import { findUserQuote } from './repo'

async function evmWallet(ctx: Ctx, walletId: string) {
  const w = await wallets.ownWallet(ctx, walletId)
  if (chainByFamily(w.chain)?.family !== 'evm') throw new BadRequestError(`Approvals are for EVM wallets; this wallet is on ${w.chain}`)
  return w
}

export async function checkAllowance(ctx: Ctx, input: AllowanceBody) {
  const tenant = tenantOf(ctx)
  const w = await evmWallet(ctx, input.walletId)
  const { endpoint } = endpointFor(ctx.deps.config, tenant.settings, w.chain, w.isTestnet)
  const rpc = await ctx.deps.chain.evmRpc(endpoint)
  const allowance = await ctx.deps.chain.guard(endpoint, 'allowance', () => rpc.allowance(input.tokenAddress as Hex, w.address as Hex, input.spenderAddress as Hex)).catch((err) => {
    // a node that answers but cannot read it (not an ERC-20 there) is the spec's 400; an unreachable one stays 503
    if ((err as { status?: number }).status === 503) throw err
    throw new BadRequestError('Failed to check token allowance', { code: 'SWAP_ALLOWANCE_CHECK_FAILED' })
  })
  const needsApproval = input.amount !== undefined ? allowance < BigInt(input.amount) : allowance === 0n
  return { walletId: w.id, chain: w.chain, tokenAddress: input.tokenAddress, spenderAddress: input.spenderAddress, allowance: allowance.toString(), needsApproval }
}

/** ERC-20 `approve(spender, amount)` from the wallet, sent like a send (fee held; no token amount held). */
export async function approve(ctx: Ctx, input: ApproveBody) {
  await evmWallet(ctx, input.walletId)
  const amount = BigInt(input.amount)
  if (amount >= 2n ** 256n) throw new BadRequestError('amount is too large')
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [input.spenderAddress as Hex, amount] })
  const out = await transactions.createEvmCall(ctx, {
    walletId: input.walletId, tokenAddress: input.tokenAddress, amount: 0n, to: input.spenderAddress,
    call: { to: input.tokenAddress as Hex, value: 0n, data },
    record: { type: 'approval', metadata: { spender: input.spenderAddress, allowance: input.amount } },
  })
  return { ...out, type: 'approval' as const }
}

/** The quote's transaction from its wallet: `fromAmount` of the source token held like a send's. */
/**
 * The request's Idempotency-Key bound to the swap (`swap:<transaction id>`) in place of its
 * transaction, so a retry whose first answer was not kept answers it in the swap's shape
 * (`swapState`: `type` and `quoteId` too). Released as the send's own would be.
 */
function asSwap(ctx: Ctx): Ctx {
  const key = ctx.idempotency
  if (!key) return ctx
  return { ...ctx, idempotency: { bind: (tx, resource) => key.bind(tx, `swap:${resource.slice(resource.indexOf(':') + 1)}`), unbind: (tx) => key.unbind(tx) } }
}

/** A swap as it is now, as execute answers it; null when it is not the caller's swap. */
export async function swapState(ctx: Ctx, id: string) {
  if (!ctx.actor.tenantId || !isUuid(id)) return null
  const row = await findUserTransaction(ctx.deps.database.db, ctx.actor.tenantId, ctx.actor.userId, id)
  if (!row || row.type !== 'swap') return null
  return {
    status: 201,
    body: {
      id: row.id,
      status: row.status,
      txHash: row.txHash,
      requiresClientSigning: row.requiresClientSigning,
      nonce: row.nonce,
      chain: row.chain,
      isTestnet: row.isTestnet,
      type: 'swap' as const,
      quoteId: row.quoteId,
    },
  }
}

/**
 * The approval a swap still lacks (the allowance to the quote's spender is below its amount):
 * carried ahead of the swap, so that where the swap goes sponsored both go as one atomic user
 * operation (SendPlan.ahead); otherwise the client approves first, as before.
 */
async function approvalAhead(ctx: Ctx, q: { walletId: string; fromToken: string | null; fromAmount: string; approvalAddress: string | null }) {
  if (!q.approvalAddress || !q.fromToken) return undefined
  const w = await evmWallet(ctx, q.walletId)
  const { endpoint } = endpointFor(ctx.deps.config, tenantOf(ctx).settings, w.chain, w.isTestnet)
  const rpc = await ctx.deps.chain.evmRpc(endpoint)
  const allowance = await ctx.deps.chain.guard(endpoint, 'allowance', () => rpc.allowance(q.fromToken as Hex, w.address as Hex, q.approvalAddress as Hex)).catch(() => null)
  if (allowance === null || allowance >= BigInt(q.fromAmount)) return undefined
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [q.approvalAddress as Hex, BigInt(q.fromAmount)] })
  return [{ to: q.fromToken as Hex, value: 0n, data }]
}

export async function executeSwap(ctx_: Ctx, input: ExecuteBody) {
  const ctx = asSwap(ctx_)
  const tenant = tenantOf(ctx)
  const q = await findUserQuote(ctx.deps.database.db, tenant.id, ctx.actor.userId, input.quoteId)
  if (!q) throw new NotFoundError('Quote not found', { code: 'SWAP_QUOTE_NOT_FOUND' })
  if (q.expiresAt <= ctx.deps.clock.now()) throw new BadRequestError('The quote has expired: ask for a new one with POST /v1/swap/quote', { code: 'SWAP_QUOTE_EXPIRED' })
  const tx = q.transaction
  const metadata = { toChain: q.toChain, toToken: q.toToken, toTokenSymbol: q.toTokenSymbol, toTokenDecimals: q.toTokenDecimals, toAmount: q.toAmount, toAmountMin: q.toAmountMin, tool: q.tool }
  if (chainByFamily(q.fromChain)?.family === 'solana') {
    // the aggregator's versioned transaction: signed with a custodial key and sent, or prepared for the client to sign
    const out = await transactions.createSolanaCall(ctx, {
      walletId: q.walletId, amount: BigInt(q.fromAmount), to: q.toAddress, transaction: tx.data,
      token: { address: q.fromToken, symbol: q.fromTokenSymbol, decimals: q.fromTokenDecimals, name: q.fromTokenSymbol },
      record: { type: 'swap', quoteId: q.id, metadata },
    })
    return { ...out, type: 'swap' as const, quoteId: q.id }
  }
  const out = await transactions.createEvmCall(ctx, {
    walletId: q.walletId, tokenAddress: q.fromToken, amount: BigInt(q.fromAmount), to: q.toAddress,
    call: { to: tx.to as Hex, value: BigInt(tx.value), data: tx.data as Hex, gasLimit: tx.gasLimit ? BigInt(tx.gasLimit) : undefined },
    ahead: await approvalAhead(ctx, q),
    record: {
      type: 'swap', quoteId: q.id,
      metadata: { ...metadata, router: tx.to },
    },
  })
  return { ...out, type: 'swap' as const, quoteId: q.id }
}

/** A client-signed swap or approval (`types`), broadcast once through the transactions module. */
export async function broadcastSwap(ctx: Ctx, input: SwapBroadcastBody, types: ReadonlyArray<'swap' | 'approval'>) {
  const tenant = tenantOf(ctx)
  if (!isUuid(input.transactionId)) throw preparedNotFound()
  const p = await findUserPrepared(ctx.deps.database.db, tenant.id, ctx.actor.userId, input.transactionId)
  const row = p && (await findUserTransaction(ctx.deps.database.db, tenant.id, ctx.actor.userId, p.transactionId))
  if (!row || !(types as string[]).includes(row.type)) throw preparedNotFound()
  const { transactionId: _, ...signature } = input
  return transactions.broadcastTransaction(ctx, p!.id, signature)
}
