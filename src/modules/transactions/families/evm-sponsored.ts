/**
 * Sponsored custodial sends (gas sponsorship, docs/gas-sponsorship.md). Where the tenant's gas
 * policy covers the operation and the wallet's native balance cannot pay its gas, the call goes
 * as an ERC-4337 user operation from the EOA itself, delegated (EIP-7702) to Simple7702Account
 * by an authorization carried with its first one: the address and its funds stay where they are.
 *
 * In order: the bundler estimates the operation (outside any transaction); the paymaster's
 * data, the authorization and the owner's signature are made (CPU only); then ONE write checks
 * the amount against what the wallet holds beside what is in flight, holds the sponsorship in
 * the tenant's limits (the gas sponsorship module's `reserveSponsorship`), records the send with
 * its user operation and hash, schedules the status job and binds the Idempotency-Key; then the
 * operation goes to the bundler. A refusal marks the send failed and releases the sponsorship.
 *
 * The status job (`refreshSponsored`) reads the operation's receipt from the bundler. One the
 * bundler no longer holds is resubmitted unchanged (the same signed operation, the same nonce:
 * it can run at most once) while its paymaster signature is valid, and failed after that, its
 * sponsorship released; one whose nonce was used on chain without a receipt is left to the next look.
 */
import { toHex, type Hex } from 'viem'
import type { BundlerEndpoint, EstimatedUserOp, UserOpCall, UserOpJson } from '../../../adapters/bundler'
import type { ChainEndpoint } from '../../../adapters/chain/port'
import type { Ctx } from '../../../context'
import type { Deps } from '../../../deps'
import { BadRequestError, ConflictError, ServiceUnavailableError } from '../../../lib/errors'
import { gasSponsorship, releaseSponsorship, reserveSponsorship, settleSponsorship, type GasOperationKind, type Sponsor, type SponsorshipRow } from '../../gas-sponsorship'
import { estimateInTurn } from './evm-delegation'
import { attachHold, chainBalances, ensureSpendable, type ChainBalances } from '../holds'
import { noticeSettled } from '../notices'
import { insertTransaction, updateTransaction, type TransactionRow } from '../repo'
import { scheduleRefresh, sendRow, walletSecret } from '../shared'
import { estimateEvm, type EvmCall, type EvmNet } from './evm-calls'
import type { SendPlan } from './port'

/** what a record type is in a gas policy's words */
export function sponsoredKind(p: SendPlan): GasOperationKind {
  if (p.sponsorAs) return p.sponsorAs
  const type = p.record?.type
  if (type === 'swap' || type === 'approval') return 'swap'
  if (type === 'supply' || type === 'withdraw') return 'lending'
  return 'send'
}

/** Whether this custodial send goes sponsored: no relayer, the wallet cannot pay the gas, the policy covers it. */
export async function goesSponsored(ctx: Ctx, p: SendPlan, balances: ChainBalances, gasCost: bigint): Promise<boolean> {
  if (p.signer) return false
  const needed = gasCost + (p.token.address === null ? p.amount : 0n)
  if (balances.native >= needed) return false
  return gasSponsorship.policyCovers(ctx.deps, p.tenantId, p.network, sponsoredKind(p))
}

/**
 * Calls that must run ahead of the call (a swap's approval): where the operation goes sponsored,
 * all of them in one user operation (`executeBatch`: the approval and the swap happen together or
 * not at all). The call alone cannot be estimated before its approval is mined, so whether the
 * wallet can pay is judged from the first call's estimate and the call's proposed gas limit.
 * Null: not sponsored, the send goes on as usual.
 */
export async function batchedSponsored(ctx: Ctx, p: SendPlan, net: EvmNet, call: EvmCall) {
  const balances = await chainBalances(ctx.deps, net, p.wallet.address, p.token.address)
  const first = await estimateEvm(ctx.deps, net, p.wallet.address, p.ahead![0]!)
  let gasCost = balances.native + 1n
  if (!('revert' in first)) gasCost = (first.gas * BigInt(p.ahead!.length) + (call.fixedGasLimit ?? call.gasLimit ?? first.gas * 4n)) * first.maxFeePerGas
  else if (!/insufficient funds/i.test(first.revert)) return null
  if (!(await goesSponsored(ctx, p, balances, gasCost))) return null
  return sponsoredSend(ctx, p, [...p.ahead!, call], balances)
}

export function randomNonceKey(): bigint {
  const b = crypto.getRandomValues(new Uint8Array(24))
  return BigInt(toHex(b))
}

/** `call` as a user operation the paymaster pays; several calls (an approval and its swap) go as one atomic `executeBatch`. */
export async function sponsoredSend(ctx: Ctx, p: SendPlan, call: EvmCall | EvmCall[], balances: ChainBalances) {
  const { deps } = ctx
  const sponsor = await gasSponsorship.sponsorFor(deps, p.settings, p.network)
  await gasSponsorship.ensureDeposit(deps, sponsor, p.tenantId)
  const secret = walletSecret(deps, p.wallet)
  try {
    const calls = (Array.isArray(call) ? call : [call]).map((c) => ({ to: c.to as Hex, value: c.value, data: (c.data ?? '0x') as Hex }))
    // a wallet's first, delegating operation goes alone (evm-delegation.ts): the others wait for it here, then go delegated
    const { estimated, turn } = await estimateInTurn(sponsor.gateway, sponsor.endpoint, p.wallet.address as Hex, () =>
      sponsor.gateway.estimate(sponsor.endpoint, toHex(secret), calls, randomNonceKey()).catch(bundlerRefusal(p.network)))
    try {
      const sent = await sponsoredRecordAndSend(ctx, p, sponsor, estimated, calls, balances)
      turn?.sent()
      return sent
    } catch (err) {
      turn?.release()
      throw err
    }
  } finally {
    secret.fill(0)
  }
}

/** What a sponsored send's record says of its sponsorship (`metadata.sponsorship`), custodial or MPC. */
export function sponsorshipMeta(s: SponsorshipRow, sponsor: Sponsor, window: { validUntil: number }, estimated: EstimatedUserOp, calls: UserOpCall[]) {
  return {
    id: s.id, paymaster: sponsor.endpoint.paymaster, maxCostWei: s.maxCostWei, validUntil: window.validUntil, delegates: estimated.delegates,
    ...(s.usdRate !== null ? { maxCostUsd: s.maxCostUsd, usdRate: s.usdRate } : {}),
    ...(calls.length > 1 ? { batchedCalls: calls.length } : {}),
  }
}

/** the bundler's refusal of an estimate, as the API answers it */
export const bundlerRefusal = (network: string) => (err: Error & { kind?: string }): never => {
  if (err.kind === 'unreachable') throw new ServiceUnavailableError(`The bundler of ${network} cannot be reached`, { code: 'BUNDLER_UNAVAILABLE' })
  throw new BadRequestError(`The bundler refused the user operation: ${err.message}`, { code: 'USER_OPERATION_REJECTED' })
}

async function sponsoredRecordAndSend(ctx: Ctx, p: SendPlan, sponsor: Sponsor, estimated: EstimatedUserOp, calls: UserOpCall[], balances: ChainBalances) {
  const { deps } = ctx
  const now = deps.clock.now()
  const window = { validUntil: Math.floor(now / 1000) + deps.config.paymasterValiditySeconds, validAfter: 0 }
  const signed = await sponsor.gateway.sign(estimated, sponsor.signer, window)
  // the native coin's USD price now, recorded with the sponsorship (the policy's USD limits are checked at it)
  const usdRate = await gasSponsorship.usdRateFor(deps, p.network)
  const holdKey = { tenantId: p.tenantId, walletId: p.wallet.id, network: p.network }
  const row = await deps.database.write(async (tx) => {
    await ensureSpendable(tx, holdKey, balances, { tokenAddress: p.token.address, amount: p.amount, fee: 0n }, now, p.holdId ?? null)
    const base = sendRow(ctx, p, now)
    const s = await reserveSponsorship(tx, {
      tenantId: p.tenantId, userId: ctx.actor.userId, network: p.network, sender: p.wallet.address, kind: sponsoredKind(p), maxCost: estimated.maxCost,
      nonce: estimated.nonce, source: 'custodial', userOpHash: signed.hash, validUntil: window.validUntil, transactionId: base.id,
      calls: calls.map((c) => ({ to: c.to, data: c.data })), delegates: estimated.delegates, usdRate,
    }, now)
    const r = {
      ...base, status: 'pending' as const, requiresClientSigning: false, txHash: null, rawTx: null, chainId: sponsor.endpoint.chainId, nonce: null,
      gasLimit: null, maxFeePerGas: null, maxPriorityFeePerGas: null, initialMaxFeePerGas: null, submittedAt: now,
      metadata: { ...(base.metadata ?? {}), sponsorship: sponsorshipMeta(s, sponsor, window, estimated, calls) },
      userOpHash: signed.hash, userOp: signed.json,
    }
    await insertTransaction(tx, r)
    await p.onRecorded?.(tx, r.id, now)
    if (p.holdId && !(await attachHold(tx, p.tenantId, p.holdId, r.id, now))) throw new ConflictError('The amount held for this send was released before it was sent')
    await scheduleRefresh(tx, r.id, r.tenantId, 1, now, deps.config.txRefreshFirstMs)
    await ctx.idempotency?.bind(tx, `transaction:${r.id}`)
    return { ...r, sponsorshipId: s.id }
  })
  const outcome = await sponsor.gateway.send(sponsor.endpoint, signed.json)
  if (outcome.kind !== 'accepted') {
    await deps.database.write(async (tx) => {
      const t = deps.clock.now()
      if (!(await updateTransaction(tx, row.tenantId, row.id, { status: 'failed', failureReason: `not submitted: ${outcome.reason}`, updatedAt: t }, { status: 'pending' }))) return
      await releaseSponsorship(tx, row.tenantId, row.sponsorshipId, t)
      await ctx.idempotency?.unbind(tx)
    })
    if (outcome.kind === 'unreachable') throw new ServiceUnavailableError(`The bundler of ${p.network} cannot be reached`, { code: 'BUNDLER_UNAVAILABLE' })
    throw new BadRequestError(`The bundler refused the user operation: ${outcome.reason}`, { code: 'USER_OPERATION_REJECTED' })
  }
  return {
    id: row.id, status: 'pending' as const, txHash: null, userOpHash: signed.hash, sponsored: true, requiresClientSigning: false, nonce: null,
    chain: row.chain, isTestnet: row.isTestnet,
  }
}

interface SponsorshipMeta {
  id: string
  validUntil: number
}

function bundlerEndpointOf(deps: Deps, endpoint: ChainEndpoint, row: TransactionRow): BundlerEndpoint {
  return {
    network: row.network, bundlerUrl: deps.config.bundlerUrls[row.network]!, rpcUrl: endpoint.rpcUrl, chainId: row.chainId ?? endpoint.expectedChainId ?? 0,
    paymaster: deps.config.paymasterAddresses[row.network] as Hex,
  }
}

/** The status job's look at a sponsored send (see the top of this file). */
export async function refreshSponsored(deps: Deps, endpoint: ChainEndpoint, row: TransactionRow): Promise<TransactionRow> {
  if (row.status !== 'pending' || !row.userOpHash || !row.userOp) return row
  const meta = (row.metadata?.sponsorship ?? null) as SponsorshipMeta | null
  if (!meta || !deps.config.bundlerUrls[row.network]) return row
  const gateway = await deps.bundler()
  const e = bundlerEndpointOf(deps, endpoint, row)
  const hash = row.userOpHash as Hex
  const receipt = await gateway.receipt(e, hash).catch(() => undefined)
  if (receipt === undefined) return row
  const now = deps.clock.now()
  if (receipt) {
    const set = {
      status: receipt.success ? 'confirmed' as const : 'failed' as const, failureReason: receipt.success ? null : 'the user operation reverted on chain',
      txHash: receipt.txHash, blockNumber: Number(receipt.blockNumber), confirmations: 1, feePaid: '0', blockTimestamp: now,
    }
    const changed = await deps.database.write(async (tx) => {
      const n = await updateTransaction(tx, row.tenantId, row.id, { ...set, updatedAt: now }, { status: 'pending' })
      if (!n) return false
      // the paymaster paid what it cost, reverted or not
      await settleSponsorship(tx, row.tenantId, meta.id, receipt.actualGasCost, now)
      await noticeSettled(deps, tx, { ...row, ...set, updatedAt: now })
      return true
    })
    return changed ? { ...row, ...set, updatedAt: now } : row
  }
  if (now - (row.submittedAt ?? row.createdAt) < Math.min(deps.config.txDropAfterMs, 5_000)) return row
  if (await gateway.known(e, hash).catch(() => true)) return row
  const json = row.userOp as UserOpJson
  const nonce = BigInt(json.nonce as string)
  // its nonce was used: it ran (its receipt shows up on a later look), or another operation took the nonce
  if (await gateway.nonceUsed(e, row.fromAddress as Hex, nonce).catch(() => true)) return row
  if (Math.floor(now / 1000) >= meta.validUntil - 30) {
    const reason = 'dropped by the bundler, and its paymaster signature expired: nothing ran'
    await deps.database.write(async (tx) => {
      if (!(await updateTransaction(tx, row.tenantId, row.id, { status: 'failed', failureReason: reason, updatedAt: now }, { status: 'pending' }))) return
      await releaseSponsorship(tx, row.tenantId, meta.id, now)
      await noticeSettled(deps, tx, { ...row, status: 'failed', failureReason: reason, updatedAt: now })
    })
    return { ...row, status: 'failed', failureReason: reason, updatedAt: now }
  }
  // dropped: the same signed operation again (its nonce makes a second run impossible)
  const outcome = await gateway.send(e, json)
  if (outcome.kind === 'accepted') {
    await deps.database.write((tx) => updateTransaction(tx, row.tenantId, row.id, { resendCount: row.resendCount + 1, submittedAt: now, updatedAt: now }, { status: 'pending' }))
    return { ...row, resendCount: row.resendCount + 1, submittedAt: now, updatedAt: now }
  }
  deps.logger.warn('sponsored send: resubmission refused', { transactionId: row.id, outcome: outcome.kind })
  return row
}
