/**
 * Swaps. For now the simulation endpoint: a confirmed record in the user's history with
 * no aggregator call and no chain call (the spec's `POST /v1/swap/simulate`). The quote,
 * approval and execution flows extend this module.
 */
import { randomBytes } from 'node:crypto'
import { iso } from '../../lib/clock'
import { newId } from '../../lib/ids'
import type { Ctx } from '../../context'
import { chainByFamily, namedChain } from '../tokens'
import { insertTransaction } from '../transactions'
import { wallets } from '../wallets'
import type { SimulateSwapBody } from './model'

export async function simulateSwap(ctx: Ctx, input: SimulateSwapBody) {
  const w = await wallets.ownWallet(ctx, input.walletId)
  const now = ctx.deps.clock.now()
  // The spec stores `fromChain` as given; the network id is derived when the chain is known
  // (a testnet's registry id, `sepolia`, is that testnet without `isTestnet`).
  const named = namedChain(input.fromChain)
  const isTestnet = input.isTestnet ?? named?.isTestnet ?? false
  const known = chainByFamily(named?.family ?? input.fromChain)
  const row = {
    id: newId(), tenantId: w.tenantId, userId: ctx.actor.userId, walletId: w.id, type: 'swap' as const, chain: input.fromChain,
    isTestnet, network: known ? (isTestnet ? known.testnet.id : known.mainnet.id) : input.fromChain, fromAddress: w.address, toAddress: null,
    amount: input.fromAmount, tokenAddress: input.fromToken, tokenSymbol: input.fromTokenSymbol ?? 'EURC_TEST', tokenDecimals: input.fromTokenDecimals ?? 6,
    status: 'confirmed' as const, requiresClientSigning: false, txHash: `SIMULATED${randomBytes(28).toString('hex')}`, previousHashes: [], rawTx: null,
    chainId: null, nonce: null, gasLimit: null, maxFeePerGas: null, maxPriorityFeePerGas: null, initialMaxFeePerGas: null, feePaid: null,
    confirmations: 0, blockNumber: null, blockTimestamp: null, failureReason: null, resendCount: 0, submittedAt: null, simulation: true,
    quoteId: `sim_${randomBytes(12).toString('hex')}`,
    metadata: {
      toToken: input.toToken, toAmount: input.fromAmount,
      toTokenSymbol: input.toTokenSymbol ?? 'SOL', toTokenDecimals: input.toTokenDecimals ?? 9,
    },
    createdAt: now, updatedAt: now,
  }
  // The record is the transactions module's: written through its repo, in one write transaction.
  await ctx.deps.database.write((tx) => insertTransaction(tx, row))
  return {
    transactionId: row.id, quoteId: row.quoteId, txHash: row.txHash, status: 'confirmed' as const,
    fromAmount: input.fromAmount, toAmount: input.fromAmount, simulation: true as const, createdAt: iso(now),
  }
}
