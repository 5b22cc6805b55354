/**
 * A transaction a client signed with no prepared transaction behind it: a dApp's transaction
 * the user's own wallet signed elsewhere (`POST /v1/dapps/broadcast`). The caller has decoded
 * it and checked that one of the user's wallets signed it for that wallet's network; here it
 * goes the way every client-signed transaction goes: recorded `pending` in the user's history
 * with its signed bytes and the status job scheduled (one write transaction), then handed to
 * the node by its chain family's `submit`. The status job follows it as any client-signed
 * transaction (evm-refresh.ts: a dropped one is handed to the node again unchanged, never
 * signed again; Solana: failed once its blockhash expires).
 *
 * A signed transaction is recorded once per user: the same bytes broadcast again answer 409
 * `TRANSACTION_ALREADY_BROADCAST` with the record's id (checked in the write transaction, so
 * of two racing broadcasts one records it). A record the node never took (`failed`,
 * `not submitted: …`) does not count: the same bytes can be broadcast again once the network
 * is back, as a new record.
 */
import type { ChainEndpoint } from '../../adapters/chain/port'
import type { Ctx } from '../../context'
import { AppError, ServiceUnavailableError } from '../../lib/errors'
import { newId } from '../../lib/ids'
import { chainByFamily } from '../tokens'
import { blockchainError } from './errors'
import { familyOf } from './families'
import type { WalletRow } from './families/port'
import { findUserTransactionsByHash, insertTransaction, updateTransaction, type NewTransaction } from './repo'
import { scheduleRefresh } from './shared'

export interface ClientSignedTransaction {
  /** the caller's wallet that signed it (the sender) */
  wallet: WalletRow
  /** the wallet's network as resolved for the tenant */
  endpoint: ChainEndpoint
  type: 'dapp'
  /** the signed transaction as its family submits it: EVM `0x` hex, Solana base64 */
  raw: string
  /** EVM: keccak256 of the signed bytes; Solana: the first signature, base58 */
  txHash: string
  toAddress: string | null
  /** the native coin it moves from the wallet, smallest unit */
  amount: bigint
  /** EVM fields as signed (null where the family has none) */
  chainId: number | null
  nonce: number | null
  gasLimit: string | null
  maxFeePerGas: string | null
  maxPriorityFeePerGas: string | null
  metadata: Record<string, unknown>
}

const NOT_SUBMITTED = 'not submitted: '
const neverSubmitted = (r: { status: string; failureReason: string | null }) => r.status === 'failed' && !!r.failureReason?.startsWith(NOT_SUBMITTED)

export const alreadyBroadcast = (transactionId: string) => new AppError(409, 'BlockchainError', 'This signed transaction was already broadcast', {
  code: 'TRANSACTION_ALREADY_BROADCAST',
  details: { transactionId },
  extra: { retryable: false, suggestedAction: 'Read its status with GET /v1/transactions/{id}/status' },
})

export async function submitClientSigned(ctx: Ctx, s: ClientSignedTransaction) {
  const { deps } = ctx
  const w = s.wallet
  const chain = chainByFamily(w.chain)
  if (!chain) throw new Error(`unknown chain ${w.chain}`)
  const now = deps.clock.now()
  const row: NewTransaction = {
    id: newId(), tenantId: w.tenantId, userId: ctx.actor.userId, walletId: w.id, type: s.type, chain: w.chain, isTestnet: w.isTestnet,
    network: s.endpoint.registryId, fromAddress: w.address, toAddress: s.toAddress, amount: s.amount.toString(), tokenAddress: null,
    tokenSymbol: chain.nativeToken.symbol, tokenDecimals: chain.nativeToken.decimals,
    // client-signed: the status job never signs it again, and custodial holds do not count it
    status: 'pending', requiresClientSigning: true, txHash: s.txHash, previousHashes: [], rawTx: s.raw,
    chainId: s.chainId, nonce: s.nonce, gasLimit: s.gasLimit, maxFeePerGas: s.maxFeePerGas, maxPriorityFeePerGas: s.maxPriorityFeePerGas,
    initialMaxFeePerGas: s.maxFeePerGas, feePaid: null, confirmations: 0, blockNumber: null, blockTimestamp: null, failureReason: null,
    resendCount: 0, submittedAt: now, simulation: false, quoteId: null, metadata: s.metadata, createdAt: now, updatedAt: now,
  }
  await deps.database.write(async (tx) => {
    const known = (await findUserTransactionsByHash(tx, w.tenantId, ctx.actor.userId, s.txHash)).find((r) => !neverSubmitted(r))
    if (known) throw alreadyBroadcast(known.id)
    await insertTransaction(tx, row)
    await scheduleRefresh(tx, row.id, w.tenantId, 1, now, deps.config.txRefreshFirstMs)
  })
  const outcome = await familyOf(s.endpoint.family).submit(deps, s.endpoint, s.raw)
  // `unknown` (no answer in time): it may be in a mempool; the status job finds out
  if (outcome.kind !== 'accepted' && outcome.kind !== 'unknown') {
    const reason = outcome.kind === 'rejected' ? outcome.reason : outcome.kind === 'nonce' ? `nonce too ${outcome.which}` : 'the network could not be reached'
    await deps.database.write((tx) => updateTransaction(tx, w.tenantId, row.id, { status: 'failed', failureReason: `${NOT_SUBMITTED}${reason}`, updatedAt: deps.clock.now() }, { status: 'pending' }))
    if (outcome.kind === 'unreachable') throw new ServiceUnavailableError(`The ${s.endpoint.registryId} network is temporarily unavailable; broadcast again`)
    throw blockchainError(400, 'TRANSACTION_REJECTED', `The network refused the transaction: ${reason}`, false, 'Check the nonce, fees and balance, then sign and broadcast a new transaction')
  }
  return { id: row.id, status: 'pending' as const, txHash: s.txHash, walletId: w.id, chain: w.chain, isTestnet: w.isTestnet, network: s.endpoint.registryId, fromAddress: w.address }
}
