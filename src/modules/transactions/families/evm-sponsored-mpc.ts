/**
 * Sponsored sends of MPC wallets (docs/gas-sponsorship.md, "MPC wallets"). An MPC wallet's key is
 * never in one place, so its user operation is prepared here and signed by its parties through
 * the relay, like its ordinary sends: where the tenant's gas policy covers the operation and
 * the wallet's native balance cannot pay its gas, `POST /v1/transactions/` answers a prepared
 * user operation instead of a prepared transaction.
 *
 * - The bundler estimates it (outside any transaction), the paymaster signs its data (CPU only),
 *   then ONE write holds the sponsorship in the tenant's limits (`reserveSponsorship`, which also
 *   schedules the settle job: an operation never signed is released once its paymaster
 *   signature expired), records the send `awaiting_signature` with the operation, and stores one
 *   prepared piece per hash the wallet's key must sign: the user operation's hash (EntryPoint
 *   v0.8's EIP-712 hash, signed raw) and, for the wallet's first sponsored operation, its
 *   EIP-7702 authorization's hash (keccak256(0x05 ‖ rlp([chainId, Simple7702Account, nonce]))).
 * - Each piece is signed like a prepared transaction: `POST /v1/mpc/wallets/{id}/sign/start`
 *   with its id, the parties run the protocol over its hash, and the reported signature comes
 *   back through `broadcastUserOpPiece` (or a client's `POST /v1/transactions/{id}/broadcast`).
 *   Each piece is consumed once; the signature is checked against the wallet's address and
 *   written into the operation in the write that consumes it. The write that completes the
 *   operation (in either order) marks it `pending` and schedules the status job, and then the
 *   operation goes to the bundler; from there it is followed as a custodial sponsored send
 *   (evm-sponsored.ts `refreshSponsored`). A refusal marks it failed and releases the sponsorship.
 */
import { recoverAddress, type Hex } from 'viem'
import { missingSignatures, withSignatures } from '../../../adapters/bundler/signatures'
import type { UserOpJson } from '../../../adapters/bundler/port'
import type { Ctx } from '../../../context'
import { iso } from '../../../lib/clock'
import { BadRequestError, ConflictError, ServiceUnavailableError } from '../../../lib/errors'
import { newId } from '../../../lib/ids'
import { gasSponsorship, releaseSponsorship, reserveSponsorship } from '../../gas-sponsorship'
import { tenantOf } from '../../tenants'
import { preparedExpired, preparedUsed, signatureDecodeFailed, wrongSigner } from '../errors'
import { chainBalances } from '../holds'
import type { BroadcastBody } from '../model'
import { consumePrepared, findPrepared, findTransaction, insertPrepared, insertTransaction, updateTransaction, type PreparedRow } from '../repo'
import { scheduleRefresh, sendRow } from '../shared'
import { estimateEvm, evmNet, transferCall } from './evm-calls'
import { bundlerRefusal, goesSponsored, randomNonceKey, sponsoredKind, sponsorshipMeta } from './evm-sponsored'
import { lowS, signatureParts } from './evm-signature'
import type { SendPlan, WalletRow } from './port'

/** a prepared piece's hash is signed by this scheme (the API's `signingScheme`) */
const SCHEMES = { 'evm-userop': 'evm-user-operation-hash', 'evm-7702-auth': 'evm-7702-authorization' } as const

/** Whether the MPC wallet's send goes sponsored, and if so the prepared user operation; null: prepared as an ordinary transaction. */
export async function mpcSponsoredPrepare(ctx: Ctx, p: SendPlan) {
  const { deps } = ctx
  if (p.wallet.keyManagementScheme !== 'mpc_tss' || p.signer) return null
  const net = await evmNet(deps, p.endpoint)
  const call = p.call ?? transferCall(p.token.address, p.to, p.amount)
  const first = p.ahead?.[0] ?? call
  const [fees, balances] = await Promise.all([estimateEvm(deps, net, p.wallet.address, first), chainBalances(deps, net, p.wallet.address, p.token.address)])
  let gasCost = balances.native + 1n
  if (!('revert' in fees)) gasCost = fees.gas * BigInt(1 + (p.ahead?.length ?? 0)) * fees.maxFeePerGas
  else if (!/insufficient funds/i.test(fees.revert)) return null
  if (!(await goesSponsored(ctx, p, balances, gasCost))) return null

  const sponsor = await gasSponsorship.sponsorFor(deps, p.settings, p.network)
  await gasSponsorship.ensureDeposit(deps, sponsor, p.tenantId)
  const calls = [...(p.ahead ?? []), call].map((c) => ({ to: c.to as Hex, value: c.value, data: (c.data ?? '0x') as Hex }))
  const estimated = await sponsor.gateway.estimate(sponsor.endpoint, { address: p.wallet.address as Hex }, calls, randomNonceKey()).catch(bundlerRefusal(p.network))
  const now = deps.clock.now()
  const window = { validUntil: Math.floor(now / 1000) + deps.config.paymasterValiditySeconds, validAfter: 0 }
  const unsigned = await sponsor.gateway.sponsor(estimated, sponsor.signer, window)
  // signed and sent while the paymaster's signature still holds, with a margin for the bundler
  const expiresAt = Math.min(now + deps.config.preparedTxTtlSeconds * 1000, (window.validUntil - 30) * 1000)
  const opPiece = newId()
  const authPiece = unsigned.authorization ? newId() : null
  // the native coin's USD price now, recorded with the sponsorship (the policy's USD limits are checked at it)
  const usdRate = await gasSponsorship.usdRateFor(deps, p.network)
  const row = await deps.database.write(async (tx) => {
    const base = sendRow(ctx, p, now)
    const s = await reserveSponsorship(tx, {
      tenantId: p.tenantId, userId: ctx.actor.userId, network: p.network, sender: p.wallet.address, kind: sponsoredKind(p), maxCost: estimated.maxCost,
      nonce: estimated.nonce, source: 'custodial', userOpHash: unsigned.hash, validUntil: window.validUntil, transactionId: base.id,
      calls: calls.map((c) => ({ to: c.to, data: c.data })), delegates: estimated.delegates, watch: true, usdRate,
    }, now)
    const r = {
      ...base, status: 'awaiting_signature' as const, requiresClientSigning: true, txHash: null, rawTx: null, chainId: sponsor.endpoint.chainId, nonce: null,
      gasLimit: null, maxFeePerGas: null, maxPriorityFeePerGas: null, initialMaxFeePerGas: null, submittedAt: null,
      metadata: { ...(base.metadata ?? {}), sponsorship: sponsorshipMeta(s, sponsor, window, estimated, calls) },
      userOpHash: unsigned.hash, userOp: unsigned.json,
    }
    await insertTransaction(tx, r)
    const piece = { tenantId: p.tenantId, userId: ctx.actor.userId, walletId: p.wallet.id, transactionId: r.id, status: 'prepared' as const, expiresAt, usedAt: null, createdAt: now }
    if (authPiece && unsigned.authorization) {
      const { hash, ...auth } = unsigned.authorization
      await insertPrepared(tx, { ...piece, id: authPiece, family: 'evm-7702-auth', unsigned: JSON.stringify(auth), signingPayload: hash })
    }
    await insertPrepared(tx, { ...piece, id: opPiece, family: 'evm-userop', unsigned: JSON.stringify(unsigned.json), signingPayload: unsigned.hash })
    return r
  })
  const auth = unsigned.authorization
  return {
    id: row.id, status: 'awaiting_signature' as const, txHash: null, requiresClientSigning: true, sponsored: true, userOpHash: unsigned.hash, nonce: null,
    chain: row.chain, isTestnet: row.isTestnet, preparedTransactionId: opPiece, signingHash: unsigned.hash, signingScheme: SCHEMES['evm-userop'], expiresAt: iso(expiresAt),
    ...(auth && authPiece
      ? { authorization: { preparedTransactionId: authPiece, signingHash: auth.hash, signingScheme: SCHEMES['evm-7702-auth'], address: auth.address, chainId: auth.chainId, nonce: auth.nonce } }
      : {}),
  }
}

export const isUserOpPiece = (family: PreparedRow['family']): family is 'evm-userop' | 'evm-7702-auth' => family === 'evm-userop' || family === 'evm-7702-auth'

/**
 * One signed piece of a prepared user operation (the broadcast of `p`, its expiry already
 * checked by the caller): consumed once, its signature written into the operation; the piece
 * that completes it sends the operation to the bundler.
 */
export async function broadcastUserOpPiece(ctx: Ctx, p: PreparedRow & { family: 'evm-userop' | 'evm-7702-auth' }, wallet: WalletRow, input: BroadcastBody) {
  const { deps } = ctx
  if (input.signedTransaction !== undefined) throw signatureDecodeFailed('a prepared user operation takes `signature` over its `signingHash`, not a signed transaction')
  const sig = lowS(signatureParts(input.signature))
  const signer = await recoverAddress({ hash: p.signingPayload as Hex, signature: sig }).catch(() => { throw signatureDecodeFailed('no signer can be recovered from this signature') })
  if (signer.toLowerCase() !== wallet.address.toLowerCase()) throw wrongSigner()
  const done = await deps.database.write(async (tx) => {
    const t = deps.clock.now()
    if (!(await consumePrepared(tx, p.tenantId, p.id, t))) return null
    const row = await findTransaction(tx, p.tenantId, p.transactionId)
    if (!row || row.status !== 'awaiting_signature' || !row.userOp) throw new ConflictError('This user operation is no longer awaiting its signatures', { code: 'PREPARED_TX_ALREADY_USED' })
    const json = withSignatures(row.userOp as UserOpJson, p.family === 'evm-userop' ? { userOp: sig } : { authorization: sig })
    const missing = missingSignatures(json)
    const complete = !missing.userOp && !missing.authorization
    await updateTransaction(tx, p.tenantId, row.id, { userOp: json, ...(complete ? { status: 'pending' as const, submittedAt: t } : {}), updatedAt: t }, { status: 'awaiting_signature' })
    if (complete) await scheduleRefresh(tx, row.id, row.tenantId, 1, t, deps.config.txRefreshFirstMs)
    return { row, json, complete }
  })
  if (!done) {
    const cur = await findPrepared(deps.database.db, p.tenantId, p.id)
    throw cur?.status === 'used' ? preparedUsed() : preparedExpired()
  }
  const answer = { id: done.row.id, preparedTransactionId: p.id, txHash: null, userOpHash: done.row.userOpHash! }
  if (!done.complete) return { ...answer, status: 'awaiting_signature' as const }
  const sponsor = await gasSponsorship.sponsorFor(deps, tenantOf(ctx).settings, done.row.network)
  const outcome = await sponsor.gateway.send(sponsor.endpoint, done.json)
  if (outcome.kind !== 'accepted') {
    const sponsorshipId = (done.row.metadata?.sponsorship as { id?: string } | undefined)?.id
    await deps.database.write(async (tx) => {
      const t = deps.clock.now()
      if (!(await updateTransaction(tx, p.tenantId, done.row.id, { status: 'failed', failureReason: `not submitted: ${outcome.reason}`, updatedAt: t }, { status: 'pending' }))) return
      if (sponsorshipId) await releaseSponsorship(tx, p.tenantId, sponsorshipId, t)
    })
    if (outcome.kind === 'unreachable') throw new ServiceUnavailableError(`The bundler of ${done.row.network} cannot be reached`, { code: 'BUNDLER_UNAVAILABLE' })
    throw new BadRequestError(`The bundler refused the user operation: ${outcome.reason}`, { code: 'USER_OPERATION_REJECTED' })
  }
  return { ...answer, status: 'pending' as const }
}
