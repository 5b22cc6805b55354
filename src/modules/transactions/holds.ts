/**
 * Holds: what a custodial wallet may still spend, checked in the write transaction that
 * records a spend, so concurrent spends (in one process or several sharing the database)
 * can never together spend more than the wallet holds.
 *
 * The chain's balances are read at one block B, outside any transaction. Inside the write
 * transaction (writers are serialised), what B's balances may not show yet is subtracted:
 * - the wallet's custodial sends still `pending` (amount, and gas × max fee in the native coin);
 * - its sends mined after B (a confirmed send's amount, and the fee any mined send paid);
 * - holds whose send does not exist yet (a payout holds its crypto when it is recorded, and
 *   its send then takes the hold over).
 * A send mined at or before B is in B's balances and is not counted again; a reverted or
 * dropped send moved nothing. A pending send the chain already mined is counted twice until
 * its status is read: that errs on the side of refusing. On Solana B is a slot, and only
 * amounts are held: a network fee or an account's rent the lamports cannot pay is refused by
 * the network's preflight, before anything is sent.
 */
import type { Hex } from 'viem'
import type { ChainEndpoint } from '../../adapters/chain/port'
import type { Deps } from '../../deps'
import type { Executor } from '../../db/client'
import { newId } from '../../lib/ids'
import type { StoredSettings } from '../tenants'
import { chainByFamily, endpointFor } from '../tokens'
import { evmNet, type EvmNet } from './families/evm-calls'
import { attachHold, findHold, findTransaction, insertHold, openHolds, releaseHold, sendsInFlight, shortenHold } from './repo'

/** The chain's balances of a wallet at one block: the native coin and one token (0 when none is asked). */
export interface ChainBalances {
  block: bigint
  native: bigint
  token: bigint
}

export interface HoldKey {
  tenantId: string
  walletId: string
  /** registry id of the network */
  network: string
}

/** What a spend takes: `amount` of the token (null: the native coin) and `fee` of the native coin at most. */
export interface Spend {
  tokenAddress: string | null
  amount: bigint
  fee: bigint
}

import { HOLD_UNSENT_TTL_MS, insufficientBalance } from './hold-rules'

export { HOLD_UNSENT_TTL_MS, insufficientBalance }


export function chainBalances(deps: Deps, net: EvmNet, address: string, tokenAddress: string | null): Promise<ChainBalances> {
  return deps.chain.guard(net.endpoint, 'balance', () => net.rpc.balancesAtLatest(address as Hex, tokenAddress as Hex | null))
}

const sameToken = (a: string | null, b: string | null) => (a === null || b === null ? a === b : a.toLowerCase() === b.toLowerCase())

/**
 * Throws 400 `INSUFFICIENT_BALANCE` unless `spend` fits in `view` beside what is in flight.
 * Call inside the write transaction that records the spend; `except` is the caller's own
 * hold, which the spend takes over.
 */
export async function ensureSpendable(tx: Executor, k: HoldKey, view: ChainBalances, spend: Spend, now: number, except: string | null = null) {
  let native = 0n
  let token = 0n
  const add = (tokenAddress: string | null, amount: bigint) => {
    if (tokenAddress === null) native += amount
    else if (sameToken(tokenAddress, spend.tokenAddress)) token += amount
  }
  for (const s of await sendsInFlight(tx, k.tenantId, k.walletId, k.network, Number(view.block))) {
    // a relayed send's gas is the relayer's (metadata.relayer), not the wallet's
    if (!s.metadata?.relayer) native += s.status === 'pending' ? BigInt(s.gasLimit ?? 0) * BigInt(s.maxFeePerGas ?? 0) : BigInt(s.feePaid ?? 0)
    if (s.status !== 'failed') add(s.tokenAddress, BigInt(s.amount))
  }
  for (const h of await openHolds(tx, k.tenantId, k.walletId, k.network, now, except)) add(h.tokenAddress, BigInt(h.amount))
  if (spend.tokenAddress === null) {
    if (native + spend.amount + spend.fee > view.native) throw insufficientBalance('native coin', view.native - native - spend.fee)
    return
  }
  if (token + spend.amount > view.token) throw insufficientBalance('token', view.token - token)
  if (native + spend.fee > view.native) throw insufficientBalance('native coin (for the network fee)', view.native - native)
}

/** Solana's balances of a wallet at one slot (`block`). */
export async function solanaBalances(deps: Deps, endpoint: ChainEndpoint, address: string, mint: string | null): Promise<ChainBalances> {
  const rpc = await deps.chain.solanaRpc(endpoint)
  return deps.chain.guard(endpoint, 'balance', () => rpc.balancesAtLatest(address, mint))
}

/** A custodial wallet's network and balances, for a hold placed before its send; null on a chain the registry does not know. */
export async function walletBalances(deps: Deps, settings: StoredSettings, w: { tenantId: string; id: string; chain: string; isTestnet: boolean; address: string }, tokenAddress: string | null) {
  const chain = chainByFamily(w.chain)
  if (!chain) return null
  const { endpoint } = endpointFor(deps.config, settings, w.chain, w.isTestnet)
  const key: HoldKey = { tenantId: w.tenantId, walletId: w.id, network: w.isTestnet ? chain.testnet.id : w.chain }
  if (chain.family === 'solana') return { key, balances: await solanaBalances(deps, endpoint, w.address, tokenAddress) }
  return { key, balances: await chainBalances(deps, await evmNet(deps, endpoint), w.address, tokenAddress) }
}

/**
 * Holds `amount` of the token for a spend recorded in this write transaction, before its
 * send exists (the send passes `holdId` and takes it over); answers the hold's id (`id`, when given).
 * `expiresAt` (default HOLD_UNSENT_TTL_MS from now): until when it counts unless released, e.g.
 * an x402 payment's signed authorization, which the payee can settle until it expires.
 */
export async function placeHold(tx: Executor, k: HoldKey, view: ChainBalances, h: {
  tokenAddress: string | null
  amount: bigint
  purpose: string
  refId: string
  id?: string
  expiresAt?: number
}, now: number) {
  await ensureSpendable(tx, k, view, { tokenAddress: h.tokenAddress, amount: h.amount, fee: 0n }, now)
  const id = h.id ?? newId()
  await insertHold(tx, {
    id, tenantId: k.tenantId, walletId: k.walletId, network: k.network, tokenAddress: h.tokenAddress, amount: h.amount.toString(),
    purpose: h.purpose, refId: h.refId, transactionId: null, releasedAt: null, expiresAt: h.expiresAt ?? now + HOLD_UNSENT_TTL_MS, createdAt: now,
  })
  return id
}

/** The send that took the hold over, if one was recorded. */
export async function sendOfHold(db: Executor, tenantId: string, holdId: string) {
  const h = await findHold(db, tenantId, holdId)
  return h?.transactionId ? findTransaction(db, tenantId, h.transactionId) : undefined
}

export { attachHold, findHold, releaseHold, shortenHold }
