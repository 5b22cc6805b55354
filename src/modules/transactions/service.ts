/**
 * Sends, fee quotes and history. A send is planned here (the caller's wallet, the
 * token, the recipient and amount checked, the RPC resolved for the tenant), then
 * handed to its chain family (families/): custodial wallets sign and submit there,
 * the others get a transaction prepared for client signing (broadcast.ts submits it).
 */
import { formatUnits } from 'viem'
import { BadRequestError, NotFoundError } from '../../lib/errors'
import { isUuid } from '../../lib/ids'
import type { Ctx } from '../../context'
import { activeTokens, chainByFamily, endpointFor, namedChain, namesWalletNetwork, type TokenDef } from '../tokens'
import type { StoredSettings } from '../tenants'
import { wallets } from '../wallets'
import { tenantOf } from '../tenants'
import { familyOf } from './families'
import { evmNet, type EvmCall } from './families/evm-calls'
import type { SendPlan, WalletRow } from './families/port'
import type { ListQuery, SendBody } from './model'
import { findUserTransaction, listUserTransactions, type TransactionRow } from './repo'
import { isCustodial } from './shared'
import { transactionView } from './view'

const ZERO = /^0x0{40}$/i
const NATIVE_SOL = new Set(['So11111111111111111111111111111111111111112', '11111111111111111111111111111111'])

/** The token a request names on the wallet's network: omitted, null, or the native placeholder = native coin. */
function resolveToken(settings: StoredSettings, w: WalletRow, tokenAddress: string | null | undefined): TokenDef {
  const chain = chainByFamily(w.chain)!
  const network = w.isTestnet ? chain.testnet : chain.mainnet
  const tokens = activeTokens(settings, chain, network)
  if (!tokenAddress || ZERO.test(tokenAddress) || (chain.family === 'solana' && NATIVE_SOL.has(tokenAddress))) {
    return { ...chain.nativeToken, address: null }
  }
  const key = chain.family === 'evm' ? tokenAddress.toLowerCase() : tokenAddress
  const found = tokens.find((tk) => tk.address !== null && (chain.family === 'evm' ? tk.address.toLowerCase() : tk.address) === key)
  if (!found) throw new BadRequestError(`Token not found: ${tokenAddress} on ${network.id}`)
  return found
}

async function planSend(ctx: Ctx, input: SendBody): Promise<SendPlan> {
  const tenant = tenantOf(ctx)
  const w = await wallets.ownWallet(ctx, input.walletId)
  if (!namesWalletNetwork(input.chain, w)) {
    throw new BadRequestError(`The wallet is on ${w.isTestnet ? chainByFamily(w.chain)!.testnet.id : w.chain}, not ${input.chain}`)
  }
  const family = chainByFamily(w.chain)!.family
  const to = await wallets.normalizeAddress(family, input.toAddress)
  if (!to) throw new BadRequestError(`toAddress is not a valid ${w.chain} address`)
  const amount = BigInt(input.amount)
  if (amount <= 0n) throw new BadRequestError('amount must be greater than 0')
  if (amount >= 2n ** 256n) throw new BadRequestError('amount is too large')
  const token = resolveToken(tenant.settings, w, input.tokenAddress)
  const network = w.isTestnet ? chainByFamily(w.chain)!.testnet.id : w.chain
  const { endpoint } = endpointFor(ctx.deps.config, tenant.settings, w.chain, w.isTestnet)
  return { tenantId: tenant.id, settings: tenant.settings, wallet: w, token, to, amount, network, endpoint }
}

/**
 * `POST /v1/transactions/`: custodial wallets send, the others get a transaction to sign.
 * `holdId`: a hold placed for this send (holds.ts), which the send takes over. `sponsorAs`: the
 * gas policy's kind for another module's transfer (a payout's, an agent's payment), which goes
 * sponsored where the policy covers that kind and the wallet cannot pay its gas.
 */
export async function createTransaction(ctx: Ctx, input: SendBody, opts: { holdId?: string; sponsorAs?: SendPlan['sponsorAs'] } = {}) {
  const p: SendPlan = { ...(await planSend(ctx, input)), holdId: opts.holdId, sponsorAs: opts.sponsorAs }
  const family = familyOf(p.endpoint.family)
  return isCustodial(p.wallet) ? family.send(ctx, p) : family.prepare(ctx, p)
}

export interface EvmCallInput {
  walletId: string
  /** the token the call spends (null: the native coin), held with `amount` like a send's */
  tokenAddress: string | null
  amount: bigint
  /** stored as the record's `toAddress` (a swap's receiver, an approval's spender); default the called contract */
  to?: string
  call: EvmCall
  /** SendPlan.ahead: calls made before `call` in the same operation when it goes sponsored (a swap's approval) */
  ahead?: EvmCall[]
  record: NonNullable<SendPlan['record']>
  /** a deployment key that signs and pays the gas instead of the wallet (a gasless swap's relayer; SendPlan.signer): sent as a custodial send, whoever holds the wallet's key */
  signer?: SendPlan['signer']
  /** SendPlan.onRecorded: in the write that records a custodial or relayed send */
  onRecorded?: SendPlan['onRecorded']
}

/**
 * Another module's call from one of the caller's EVM wallets (a swap, an approval), sent as
 * a send is: custodial wallets sign and submit it through the nonce lanes with the spent
 * amount and the gas held, the others get it prepared for client signing; the status job
 * follows it. The token must be active for the tenant on the wallet's network.
 */
export async function createEvmCall(ctx: Ctx, input: EvmCallInput, opts: { holdId?: string } = {}) {
  const p = await evmCallPlan(ctx, input, opts)
  const family = familyOf('evm')
  return input.signer || isCustodial(p.wallet) ? family.send(ctx, p) : family.prepare(ctx, p)
}

/**
 * `input.call` with `input.ahead` (an Aave supply with its approval) as ONE sponsored user
 * operation (`executeBatch`) from a custodial wallet, where the tenant's gas policy covers it and
 * the wallet cannot pay the gas; null when it does not go sponsored (nothing recorded or sent:
 * the caller sends the calls one by one, as before).
 */
export async function createSponsoredBatch(ctx: Ctx, input: EvmCallInput & { ahead: EvmCall[] }) {
  const p = await evmCallPlan(ctx, input, {})
  if (input.signer || !isCustodial(p.wallet) || !input.ahead.length) return null
  const { batchedSponsored } = await import('./families/evm-sponsored')
  return batchedSponsored(ctx, p, await evmNet(ctx.deps, p.endpoint), input.call)
}

async function evmCallPlan(ctx: Ctx, input: EvmCallInput, opts: { holdId?: string }): Promise<SendPlan> {
  const tenant = tenantOf(ctx)
  const w = await wallets.ownWallet(ctx, input.walletId)
  const chain = chainByFamily(w.chain)!
  if (chain.family !== 'evm') throw new BadRequestError(`The wallet is on ${w.chain}, not an EVM chain`)
  const token = resolveToken(tenant.settings, w, input.tokenAddress)
  const network = w.isTestnet ? chain.testnet.id : w.chain
  const { endpoint } = endpointFor(ctx.deps.config, tenant.settings, w.chain, w.isTestnet)
  const p: SendPlan = {
    tenantId: tenant.id, settings: tenant.settings, wallet: w, token, to: input.to ?? input.call.to, amount: input.amount, network, endpoint,
    holdId: opts.holdId, call: input.call, ahead: input.ahead, record: input.record, signer: input.signer, onRecorded: input.onRecorded,
  }
  return p
}

/** Estimated gas and fee in the native coin for a would-be send, read from the chain. */
export async function quoteTransaction(ctx: Ctx, input: SendBody) {
  const p = await planSend(ctx, input)
  const chain = chainByFamily(p.wallet.chain)!
  const q = await familyOf(chain.family).quote(ctx, p)
  const text = (v: bigint | null) => (v === null ? null : v.toString())
  return {
    chain: p.wallet.chain, isTestnet: p.wallet.isTestnet, nativeTokenSymbol: chain.nativeToken.symbol, nativeTokenDecimals: chain.nativeToken.decimals,
    estimatedGas: text(q.estimatedGas), maxFeePerGas: text(q.maxFeePerGas), maxPriorityFeePerGas: text(q.maxPriorityFeePerGas),
    estimatedFee: q.fee.toString(), estimatedFeeNative: formatUnits(q.fee, chain.nativeToken.decimals),
  }
}

/** One of the caller's transactions; anyone else's id answers 404. */
export async function ownTransaction(ctx: Ctx, id: string): Promise<TransactionRow> {
  if (!ctx.actor.tenantId || !isUuid(id)) throw new NotFoundError('Transaction not found')
  const row = await findUserTransaction(ctx.deps.database.db, ctx.actor.tenantId, ctx.actor.userId, id)
  if (!row) throw new NotFoundError('Transaction not found')
  return row
}

/** The caller's transactions matching the query, newest first, and the page it asked for. */
export async function listTransactionRows(ctx: Ctx, query: ListQuery) {
  const page = query.page ?? 1
  const limit = query.limit ?? 20
  if (!ctx.actor.tenantId) return { rows: [] as TransactionRow[], total: 0, page, limit }
  // `ethereum` names the chain on both networks; a testnet's registry id (`sepolia`) names that testnet only.
  const named = query.chain ? namedChain(query.chain) : undefined
  const filter = { walletId: query.walletId, chain: named?.family ?? query.chain?.toLowerCase(), testnetOnly: named?.isTestnet === true, status: query.status }
  const { rows, total } = await listUserTransactions(ctx.deps.database.db, ctx.actor.tenantId, ctx.actor.userId, filter, limit, (page - 1) * limit)
  return { rows, total, page, limit }
}

export async function listTransactions(ctx: Ctx, query: ListQuery) {
  const { rows, total, page, limit } = await listTransactionRows(ctx, query)
  return pageOf(rows.map(transactionView), total, page, limit)
}

export function pageOf<T>(data: T[], total: number, page: number, limit: number) {
  return { data, pagination: { page, limit, total, totalPages: Math.ceil(total / limit) } }
}
