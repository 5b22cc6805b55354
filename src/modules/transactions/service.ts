/**
 * Sends: custodial (the service signs and submits) and non-custodial (the service
 * prepares, the client signs, broadcast.ts submits), fee quotes, history.
 *
 * Custodial EVM send, in order: estimate gas and fees from the chain (no transaction
 * open); make sure the wallet's nonce row exists (chain `pending` count); then ONE write
 * transaction reserves the nonce, signs locally (CPU only), stores the transaction with
 * its hash and signed bytes, and schedules the status job; then the signed transaction
 * goes to the RPC. If the node refuses the nonce, the counter is resynchronised from
 * the chain and the same record is signed again with a new nonce (up to 3 times). If
 * the submission never reached a node, or the node refused it, the record is marked
 * failed and the nonce given back (the next send takes it), so no gap is left.
 */
import { and, count, desc, eq, type SQL } from 'drizzle-orm'
import { formatUnits, type Hex } from 'viem'
import type { Deps } from '../../deps'
import { BadRequestError, NotFoundError, ServiceUnavailableError } from '../../http/errors'
import { iso } from '../../lib/clock'
import { isUuid, newId } from '../../lib/ids'
import { scheduleJob } from '../../jobs/outbox'
import type { Ctx } from '../../context'
import { activeTokens, chainByFamily, endpointFor, namedChain, namesWalletNetwork, type TokenDef } from '../tokens/registry'
import type { StoredSettings } from '../tenants/settings'
import { normalizeAddress, openKey } from '../wallets/keys'
import type { WalletRow } from '../wallets/schema'
import { callerTenant, ownWallet } from '../wallets/service'
import { blockchainError } from './errors'
import { estimateEvm, evmNet, signEvm, signingHashOf, submitRaw, transferCall, unsignedEip1559, type EvmFees, type EvmNet } from './evm'
import { hasNonceRow, initNonceRow, releaseNonce, reserveNonce, resyncNonce, type NonceKey } from './nonces'
import { preparedTransactions, transactions, type TransactionRow, type TxStatus } from './schema'
import * as solana from './solana'
import { transactionView } from './view'
import { REFRESH_TOPIC } from './jobs'

export { REFRESH_TOPIC }
/** Status job delays: 1 s, doubling, at most one minute apart. */
export const refreshDelayMs = (attempt: number) => Math.min(1000 * 2 ** Math.max(0, attempt - 1), 60_000)

export interface SendInput {
  walletId: string
  chain: string
  toAddress: string
  amount: string
  tokenAddress?: string | null
}

/** Wallets whose key the service holds sign here; the others sign on the client. */
export const isCustodial = (w: WalletRow) => (w.keyManagementScheme === 'aes_single' || w.keyManagementScheme === 'client_side_pending' || w.keyManagementScheme === 'sss_2of2_akv') && !!w.keySealed

const ZERO = /^0x0{40}$/i
const NATIVE_SOL = new Set(['So11111111111111111111111111111111111111112', '11111111111111111111111111111111'])

/** The token a request names on the wallet's network: omitted, null, or the native placeholder = native coin. */
export function resolveToken(settings: StoredSettings, w: WalletRow, tokenAddress: string | null | undefined): TokenDef {
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

export interface SendPlan {
  tenantId: string
  settings: StoredSettings
  wallet: WalletRow
  token: TokenDef
  to: string
  amount: bigint
  network: string
}

export async function planSend(ctx: Ctx, input: SendInput): Promise<SendPlan> {
  const tenant = await callerTenant(ctx)
  const w = await ownWallet(ctx, input.walletId)
  if (!namesWalletNetwork(input.chain, w)) {
    throw new BadRequestError(`The wallet is on ${w.isTestnet ? chainByFamily(w.chain)!.testnet.id : w.chain}, not ${input.chain}`)
  }
  const family = chainByFamily(w.chain)!.family
  const to = normalizeAddress(family, input.toAddress)
  if (!to) throw new BadRequestError(`toAddress is not a valid ${w.chain} address`)
  const amount = BigInt(input.amount)
  if (amount <= 0n) throw new BadRequestError('amount must be greater than 0')
  if (amount >= 2n ** 256n) throw new BadRequestError('amount is too large')
  const token = resolveToken(tenant.settings, w, input.tokenAddress)
  const network = w.isTestnet ? chainByFamily(w.chain)!.testnet.id : w.chain
  return { tenantId: tenant.id, settings: tenant.settings, wallet: w, token, to, amount, network }
}

function baseRow(ctx: Ctx, p: SendPlan, now: number) {
  return {
    id: newId(), tenantId: p.tenantId, userId: ctx.actor.userId, walletId: p.wallet.id, type: 'send' as const, chain: p.wallet.chain,
    isTestnet: p.wallet.isTestnet, network: p.network, fromAddress: p.wallet.address, toAddress: p.to, amount: p.amount.toString(),
    tokenAddress: p.token.address, tokenSymbol: p.token.symbol, tokenDecimals: p.token.decimals, previousHashes: [] as string[],
    confirmations: 0, resendCount: 0, simulation: false, quoteId: null, metadata: null, feePaid: null, blockNumber: null, blockTimestamp: null,
    failureReason: null, createdAt: now, updatedAt: now,
  }
}

export function walletSecret(deps: Deps, w: WalletRow): Uint8Array {
  return openKey(deps.sealer, { tenantId: w.tenantId, walletId: w.id, address: w.address }, { dataKeyWrapped: w.dataKeyWrapped!, keySealed: w.keySealed! })
}

const insufficient = (reason: string) => blockchainError(400, 'TRANSACTION_WOULD_FAIL', `The network refuses this transaction: ${reason}`, false, 'Check the wallet\'s balance of the token and of the native coin for gas')

export async function createTransaction(ctx: Ctx, input: SendInput) {
  const p = await planSend(ctx, input)
  const family = chainByFamily(p.wallet.chain)!.family
  if (family === 'solana') return solana.createSolanaSend(ctx, p, isCustodial(p.wallet))
  const { endpoint } = endpointFor(ctx.deps.config, p.settings, p.wallet.chain, p.wallet.isTestnet)
  const net = await evmNet(ctx.deps, endpoint)
  const call = transferCall(p.token.address, p.to, p.amount)
  const fees = await estimateEvm(ctx.deps, net, p.wallet.address, call)
  if ('revert' in fees) throw insufficient(fees.revert)
  if (isCustodial(p.wallet)) return custodialEvmSend(ctx, p, net, call, fees)
  return prepareEvmSend(ctx, p, net, call, fees)
}

async function custodialEvmSend(ctx: Ctx, p: SendPlan, net: EvmNet, call: ReturnType<typeof transferCall>, fees: EvmFees) {
  const { deps } = ctx
  const key: NonceKey = { tenantId: p.tenantId, walletId: p.wallet.id, network: p.network }
  const laneKey = `${key.tenantId}|${key.walletId}|${key.network}`
  const chainPending = () => deps.chain.guard(net.endpoint, 'nonce', () => net.client.getTransactionCount({ address: p.wallet.address as Hex, blockTag: 'pending' }))
  if (!(await hasNonceRow(deps.database.db, key))) await initNonceRow(deps, key, await chainPending())
  const secret = walletSecret(deps, p.wallet)
  try {
    const now = deps.clock.now()
    let turn: Turn | undefined
    const row = await deps.database.write(async (tx) => {
      const nonce = await reserveNonce(tx, key, now)
      // Taken in reservation order (writes are serialised), so submissions leave in nonce order.
      turn = takeTurn(laneKey)
      const signed = await signEvm(secret, unsignedEip1559(net.chainId, nonce, call, fees))
      const r = {
        ...baseRow(ctx, p, now), status: 'pending' as const, requiresClientSigning: false, txHash: signed.hash, rawTx: signed.raw, chainId: net.chainId, nonce,
        gasLimit: fees.gas.toString(), maxFeePerGas: fees.maxFeePerGas.toString(), maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
        initialMaxFeePerGas: fees.maxFeePerGas.toString(), submittedAt: now,
      }
      await tx.insert(transactions).values(r)
      await scheduleRefresh(tx, r.id, r.tenantId, 1, now)
      return r
    }).catch((err) => {
      turn?.release()
      throw err
    })
    await turn!.ready
    try {
      return await submitCustodial(ctx, p, net, call, fees, key, secret, row)
    } finally {
      turn!.release()
    }
  } finally {
    secret.fill(0)
  }
}

async function submitCustodial(ctx: Ctx, p: SendPlan, net: EvmNet, call: ReturnType<typeof transferCall>, fees: EvmFees, key: NonceKey, secret: Uint8Array, row: { id: string; tenantId: string; chain: string; isTestnet: boolean; nonce: number; rawTx: Hex; txHash: Hex }) {
  const { deps } = ctx
  const chainPending = () => deps.chain.guard(net.endpoint, 'nonce', () => net.client.getTransactionCount({ address: p.wallet.address as Hex, blockTag: 'pending' }))
  let current: { nonce: number; raw: Hex; hash: Hex } = { nonce: row.nonce, raw: row.rawTx, hash: row.txHash }
  for (let attempt = 1; ; attempt++) {
    const outcome = await submitRaw(net, current.raw)
    if (outcome.kind === 'accepted' || outcome.kind === 'unknown') break
    if (outcome.kind === 'nonce' && attempt < 4) {
      // Resynchronise outside any transaction, then re-sign the same record with a fresh nonce.
      const pending = await chainPending()
      current = await deps.database.write(async (tx) => {
        const t = deps.clock.now()
        await resyncNonce(tx, key, pending, outcome.which, t)
        const nonce = await reserveNonce(tx, key, t)
        const signed = await signEvm(secret, unsignedEip1559(net.chainId, nonce, call, fees))
        await tx.update(transactions).set({ nonce, txHash: signed.hash, rawTx: signed.raw, submittedAt: t, updatedAt: t }).where(and(eq(transactions.tenantId, row.tenantId), eq(transactions.id, row.id)))
        return { nonce, raw: signed.raw, hash: signed.hash }
      })
      continue
    }
    // Never reached a node, or refused: nothing is in a mempool, so the nonce goes back.
    const reason = outcome.kind === 'rejected' ? outcome.reason : outcome.kind === 'nonce' ? `nonce refused (${outcome.which})` : 'the network could not be reached'
    await deps.database.write(async (tx) => {
      const t = deps.clock.now()
      await tx.update(transactions).set({ status: 'failed', failureReason: `not submitted: ${reason}`, updatedAt: t }).where(and(eq(transactions.tenantId, row.tenantId), eq(transactions.id, row.id)))
      await releaseNonce(tx, key, current.nonce, t)
    })
    if (outcome.kind === 'unreachable') throw new ServiceUnavailableError(`The ${net.endpoint.registryId} network is temporarily unavailable`)
    throw blockchainError(400, 'TRANSACTION_REJECTED', `The network refused the transaction: ${reason}`, outcome.kind === 'nonce', 'Check the amount and balances, then send again')
  }
  return { id: row.id, status: 'pending' as const, txHash: current.hash, requiresClientSigning: false, nonce: current.nonce, chain: row.chain, isTestnet: row.isTestnet }
}

interface Turn {
  /** resolves when every earlier send of the lane has been submitted */
  ready: Promise<void>
  release(): void
}

/**
 * Per-wallet submission lanes (in this process): a send submits only after the sends
 * that reserved earlier nonces have, so the node sees nonces in order. Nodes queue an
 * early nonce, but RPC providers and load balancers do not all do so, and a development
 * node such as ganache holds every request behind it.
 */
const lanes = new Map<string, Promise<void>>()

function takeTurn(key: string): Turn {
  const prev = lanes.get(key) ?? Promise.resolve()
  let release!: () => void
  const mine = new Promise<void>((resolve) => (release = resolve))
  const tail = prev.then(() => mine)
  lanes.set(key, tail)
  void tail.then(() => {
    if (lanes.get(key) === tail) lanes.delete(key)
  })
  return { ready: prev, release }
}

async function prepareEvmSend(ctx: Ctx, p: SendPlan, net: EvmNet, call: ReturnType<typeof transferCall>, fees: EvmFees) {
  const { deps } = ctx
  // The client's key may also be used elsewhere: the chain's pending count is the truth.
  const nonce = await deps.chain.guard(net.endpoint, 'nonce', () => net.client.getTransactionCount({ address: p.wallet.address as Hex, blockTag: 'pending' }))
  const unsignedTx = unsignedEip1559(net.chainId, nonce, call, fees)
  const { unsigned, hash } = signingHashOf(unsignedTx)
  const now = deps.clock.now()
  const expiresAt = now + deps.config.preparedTxTtlSeconds * 1000
  const row = {
    ...baseRow(ctx, p, now), status: 'awaiting_signature' as const, requiresClientSigning: true, txHash: null, rawTx: null, chainId: net.chainId, nonce,
    gasLimit: fees.gas.toString(), maxFeePerGas: fees.maxFeePerGas.toString(), maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
    initialMaxFeePerGas: fees.maxFeePerGas.toString(), submittedAt: null,
  }
  const preparedId = newId()
  await deps.database.write(async (tx) => {
    await tx.insert(transactions).values(row)
    await tx.insert(preparedTransactions).values({
      id: preparedId, tenantId: p.tenantId, userId: ctx.actor.userId, walletId: p.wallet.id, transactionId: row.id, family: 'evm',
      unsigned, signingPayload: hash, status: 'prepared', expiresAt, usedAt: null, createdAt: now,
    })
  })
  return {
    id: row.id, status: row.status, txHash: null, requiresClientSigning: true, preparedTransactionId: preparedId, chain: row.chain, isTestnet: row.isTestnet,
    signingHash: hash, unsignedTransaction: unsigned, signingScheme: 'evm-eip1559-hash' as const, expiresAt: iso(expiresAt), nonce,
    transaction: {
      type: 'eip1559' as const, chainId: net.chainId, nonce, to: call.to, value: call.value.toString(), data: call.data ?? '0x',
      gas: fees.gas.toString(), maxFeePerGas: fees.maxFeePerGas.toString(), maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
    },
  }
}

export async function scheduleRefresh(tx: Parameters<typeof scheduleJob>[0], transactionId: string, tenantId: string, attempt: number, now: number) {
  await scheduleJob(tx, { id: `tx-refresh:${transactionId}:${attempt}`, topic: REFRESH_TOPIC, tenantId, payload: { transactionId, attempt }, runAt: now + refreshDelayMs(attempt) }, now)
}

/** Estimated gas and fee in the native coin for a would-be send, read from the chain. */
export async function quoteTransaction(ctx: Ctx, input: SendInput) {
  const p = await planSend(ctx, input)
  const chain = chainByFamily(p.wallet.chain)!
  const base = { chain: p.wallet.chain, isTestnet: p.wallet.isTestnet, nativeTokenSymbol: chain.nativeToken.symbol, nativeTokenDecimals: chain.nativeToken.decimals }
  if (chain.family === 'solana') {
    const fee = await solana.quoteSolana(ctx, p)
    return { ...base, estimatedGas: null, maxFeePerGas: null, maxPriorityFeePerGas: null, estimatedFee: fee.toString(), estimatedFeeNative: formatUnits(fee, chain.nativeToken.decimals) }
  }
  const { endpoint } = endpointFor(ctx.deps.config, p.settings, p.wallet.chain, p.wallet.isTestnet)
  const net = await evmNet(ctx.deps, endpoint)
  const fees = await estimateEvm(ctx.deps, net, p.wallet.address, transferCall(p.token.address, p.to, p.amount))
  if ('revert' in fees) throw insufficient(fees.revert)
  const fee = fees.gas * fees.maxFeePerGas
  return {
    ...base, estimatedGas: fees.gas.toString(), maxFeePerGas: fees.maxFeePerGas.toString(), maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
    estimatedFee: fee.toString(), estimatedFeeNative: formatUnits(fee, chain.nativeToken.decimals),
  }
}

/** One of the caller's transactions; anyone else's id answers 404. */
export async function ownTransaction(ctx: Ctx, id: string): Promise<TransactionRow> {
  if (!ctx.actor.tenantId || !isUuid(id)) throw new NotFoundError('Transaction not found')
  const row = await ctx.deps.database.db.select().from(transactions)
    .where(and(eq(transactions.tenantId, ctx.actor.tenantId), eq(transactions.userId, ctx.actor.userId), eq(transactions.id, id))).get()
  if (!row) throw new NotFoundError('Transaction not found')
  return row
}

export interface ListFilter {
  page: number
  limit: number
  walletId?: string
  chain?: string
  status?: TxStatus
  type?: 'send' | 'swap'
}

export async function listTransactionRows(ctx: Ctx, f: ListFilter) {
  if (!ctx.actor.tenantId) return { rows: [] as TransactionRow[], total: 0 }
  const conds: SQL[] = [eq(transactions.tenantId, ctx.actor.tenantId), eq(transactions.userId, ctx.actor.userId)]
  if (f.walletId) conds.push(eq(transactions.walletId, f.walletId))
  if (f.chain) {
    const named = namedChain(f.chain)
    conds.push(eq(transactions.chain, named?.family ?? f.chain.toLowerCase()))
    if (named?.isTestnet) conds.push(eq(transactions.isTestnet, true))
  }
  if (f.status) conds.push(eq(transactions.status, f.status))
  if (f.type) conds.push(eq(transactions.type, f.type))
  const where = and(...conds)
  const db = ctx.deps.database.db
  const [rows, [total]] = await Promise.all([
    db.select().from(transactions).where(where).orderBy(desc(transactions.createdAt), desc(transactions.id)).limit(f.limit).offset((f.page - 1) * f.limit),
    db.select({ n: count() }).from(transactions).where(where),
  ])
  return { rows, total: Number(total?.n ?? 0) }
}

export async function listTransactions(ctx: Ctx, f: ListFilter) {
  const { rows, total } = await listTransactionRows(ctx, f)
  return pageOf(rows.map(transactionView), total, f.page, f.limit)
}

export function pageOf<T>(data: T[], total: number, page: number, limit: number) {
  return { data, pagination: { page, limit, total, totalPages: Math.ceil(total / limit) } }
}
