/**
 * Another module's Solana transaction from one of the caller's Solana wallets (a swap from
 * Solana: the aggregator's base64 versioned transaction). Its fee payer must be the wallet.
 * - custodial: signed with the wallet's key and sent as a send is (families/solana.ts
 *   `sendVersioned`): the spent amount held against the wallet's balances, the record written
 *   and the `Idempotency-Key` bound before it reaches the network;
 * - non-custodial: prepared for the client to sign its message and broadcast once
 *   (`prepareVersioned`), as a prepared send is.
 * The status job follows either by signature.
 */
import { VersionedTransaction } from '@solana/web3.js'
import type { Ctx } from '../../context'
import { BadRequestError } from '../../lib/errors'
import { tenantOf } from '../tenants'
import { chainByFamily, endpointFor, type TokenDef } from '../tokens'
import { wallets } from '../wallets'
import { prepareVersioned, sendVersioned } from './families/solana'
import type { SendPlan } from './families/port'
import { isCustodial } from './shared'

export interface SolanaCallInput {
  walletId: string
  /** what the transaction spends (address null: native SOL), held with `amount` like a send's */
  token: TokenDef
  amount: bigint
  /** stored as the record's `toAddress` (a swap's receiver) */
  to: string
  /** the serialized versioned (or legacy) transaction, base64, unsigned */
  transaction: string
  record: NonNullable<SendPlan['record']>
}

export async function createSolanaCall(ctx: Ctx, input: SolanaCallInput) {
  const tenant = tenantOf(ctx)
  const w = await wallets.ownWallet(ctx, input.walletId)
  const chain = chainByFamily(w.chain)!
  if (chain.family !== 'solana') throw new BadRequestError(`The wallet is on ${w.chain}, not Solana`)
  let tx: VersionedTransaction
  try {
    tx = VersionedTransaction.deserialize(Buffer.from(input.transaction, 'base64'))
  } catch {
    throw new BadRequestError('The transaction to send is not a serialized Solana transaction', { code: 'SOLANA_CALL_UNREADABLE' })
  }
  const payer = tx.message.staticAccountKeys[0]?.toBase58()
  if (payer !== w.address) throw new BadRequestError(`The transaction's fee payer is ${payer ?? 'missing'}, not the wallet ${w.address}`, { code: 'SOLANA_CALL_WRONG_PAYER' })
  const { endpoint } = endpointFor(ctx.deps.config, tenant.settings, w.chain, w.isTestnet)
  const p: SendPlan = {
    tenantId: tenant.id, settings: tenant.settings, wallet: w, token: input.token, to: input.to, amount: input.amount,
    network: w.isTestnet ? chain.testnet.id : w.chain, endpoint, record: input.record,
  }
  return isCustodial(w) ? sendVersioned(ctx, p, tx) : prepareVersioned(ctx, p, tx)
}
