/**
 * Solana sends (the ChainFamily for Solana), built with @solana/web3.js (1.x): native
 * SOL with the System program's transfer, SPL tokens with `TransferChecked` to the
 * recipient's associated token account, created first if missing (the ATA program's
 * idempotent create, paid by the sender). A transaction is valid until its recent
 * blockhash expires (`lastValidBlockHeight`, kept in the record's metadata); after that,
 * with no status from the network, it is marked failed. The signature (base58) is the
 * transaction hash. A client signs the serialized message bytes (`message`, base64) with
 * ed25519 and sends the 64-byte signature (base58 or base64) or the signed transaction
 * (base64): solana-signed.ts. The status looks: solana-refresh.ts.
 */
import { base58 } from '@scure/base'
import { Keypair, PublicKey, SystemProgram, Transaction, TransactionInstruction, VersionedTransaction } from '@solana/web3.js'
import type { ChainEndpoint } from '../../../adapters/chain/port'
import { TOKEN_PROGRAM_ID } from '../../../adapters/chain/solana'
import type { Deps } from '../../../deps'
import { iso } from '../../../lib/clock'
import { newId } from '../../../lib/ids'
import type { Ctx } from '../../../context'
import { BadRequestError, ConflictError } from '../../../lib/errors'
import { blockchainError } from '../errors'
import { attachHold, ensureSpendable, solanaBalances } from '../holds'
import { insertPrepared, insertTransaction, updateTransaction } from '../repo'
import { scheduleRefresh, sendRow, walletSecret } from '../shared'
import type { ChainFamily, SendPlan } from './port'
import { refreshSolana } from './solana-refresh'
import { signedSolana } from './solana-signed'

const ATA_PROGRAM_ID = new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL')

export function associatedTokenAddress(owner: PublicKey, mint: PublicKey): PublicKey {
  return PublicKey.findProgramAddressSync([owner.toBuffer(), TOKEN_PROGRAM_ID.toBuffer(), mint.toBuffer()], ATA_PROGRAM_ID)[0]
}

function instructions(p: SendPlan): TransactionInstruction[] {
  const from = new PublicKey(p.wallet.address)
  const to = new PublicKey(p.to)
  if (!p.token.address) return [SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: p.amount })]
  const mint = new PublicKey(p.token.address)
  const source = associatedTokenAddress(from, mint)
  const dest = associatedTokenAddress(to, mint)
  const createDest = new TransactionInstruction({
    programId: ATA_PROGRAM_ID,
    keys: [
      { pubkey: from, isSigner: true, isWritable: true },
      { pubkey: dest, isSigner: false, isWritable: true },
      { pubkey: to, isSigner: false, isWritable: false },
      { pubkey: mint, isSigner: false, isWritable: false },
      { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
      { pubkey: TOKEN_PROGRAM_ID, isSigner: false, isWritable: false },
    ],
    data: Buffer.from([1]), // CreateIdempotent
  })
  const data = Buffer.alloc(10)
  data[0] = 12 // TransferChecked
  data.writeBigUInt64LE(p.amount, 1)
  data[9] = p.token.decimals
  const transfer = new TransactionInstruction({
    programId: TOKEN_PROGRAM_ID,
    keys: [
      { pubkey: source, isSigner: false, isWritable: true },
      { pubkey: mint, isSigner: false, isWritable: false },
      { pubkey: dest, isSigner: false, isWritable: true },
      { pubkey: from, isSigner: true, isWritable: false },
    ],
    data,
  })
  return [createDest, transfer]
}

const rpcOf = (deps: Deps, endpoint: ChainEndpoint) => deps.chain.solanaRpc(endpoint)

async function build(deps: Deps, p: SendPlan) {
  if (p.token.address && p.amount >= 2n ** 64n) throw blockchainError(400, 'TRANSACTION_WOULD_FAIL', 'amount does not fit an SPL token amount (u64)', false)
  const rpc = await rpcOf(deps, p.endpoint)
  const { blockhash, lastValidBlockHeight } = await deps.chain.guard(p.endpoint, 'blockhash', () => rpc.latestBlockhash())
  const tx = new Transaction({ feePayer: new PublicKey(p.wallet.address), blockhash, lastValidBlockHeight }).add(...instructions(p))
  return { tx, lastValidBlockHeight }
}

async function quote(ctx: Ctx, p: SendPlan) {
  const { tx } = await build(ctx.deps, p)
  const rpc = await rpcOf(ctx.deps, p.endpoint)
  const fee = BigInt(await ctx.deps.chain.guard(p.endpoint, 'fee', () => rpc.feeForMessage(tx.compileMessage())) ?? 5000)
  return { estimatedGas: null, maxFeePerGas: null, maxPriorityFeePerGas: null, fee }
}

/** The send record's columns before signing: no gas fields; the blockhash and its last valid height in metadata. */
function solanaRow(ctx: Ctx, p: SendPlan, now: number, tx: Transaction, lastValidBlockHeight: number) {
  return {
    ...sendRow(ctx, p, now),
    chainId: null, nonce: null, gasLimit: null, maxFeePerGas: null, maxPriorityFeePerGas: null, initialMaxFeePerGas: null,
    metadata: { lastValidBlockHeight, recentBlockhash: tx.recentBlockhash },
  }
}

async function send(ctx: Ctx, p: SendPlan) {
  const { deps } = ctx
  const { tx, lastValidBlockHeight } = await build(deps, p)
  const now = deps.clock.now()
  const base = solanaRow(ctx, p, now, tx, lastValidBlockHeight)
  const secret = walletSecret(deps, p.wallet)
  try {
    tx.sign(Keypair.fromSeed(secret))
  } finally {
    secret.fill(0)
  }
  return recordAndSubmit(ctx, p, base, tx.serialize(), base58.encode(tx.signature!), now)
}

/** The record of another module's versioned transaction: its blockhash's last valid height is the node's height now + 150. */
async function versionedRow(ctx: Ctx, p: SendPlan, tx: VersionedTransaction) {
  const rpc = await rpcOf(ctx.deps, p.endpoint)
  const lastValidBlockHeight = (await ctx.deps.chain.guard(p.endpoint, 'blockHeight', () => rpc.blockHeight())) + 150
  const now = ctx.deps.clock.now()
  const base = {
    ...sendRow(ctx, p, now),
    chainId: null, nonce: null, gasLimit: null, maxFeePerGas: null, maxPriorityFeePerGas: null, initialMaxFeePerGas: null,
    metadata: { ...(p.record?.metadata ?? {}), lastValidBlockHeight, recentBlockhash: tx.message.recentBlockhash },
  }
  return { base, lastValidBlockHeight, now }
}

/**
 * A transaction another module built (a swap from Solana: the aggregator's versioned
 * transaction, with its own recent blockhash), signed with the custodial wallet's key and sent
 * as a send is. The blockhash's last valid height is not in the transaction: the node's height
 * now + 150 bounds it (a blockhash is valid for 150 blocks), so the status job expires it at the latest then.
 */
export async function sendVersioned(ctx: Ctx, p: SendPlan, tx: VersionedTransaction) {
  const { base, now } = await versionedRow(ctx, p, tx)
  const secret = walletSecret(ctx.deps, p.wallet)
  try {
    tx.sign([Keypair.fromSeed(secret)])
  } finally {
    secret.fill(0)
  }
  return recordAndSubmit(ctx, p, base, Buffer.from(tx.serialize()), base58.encode(tx.signatures[0]!), now)
}

/**
 * The same transaction from a non-custodial wallet: prepared for the client to sign its
 * message (the versioned message's bytes, base64) and broadcast once, as a prepared send is.
 * Only the fee payer's signature may be missing: one that needs others is refused.
 */
export async function prepareVersioned(ctx: Ctx, p: SendPlan, tx: VersionedTransaction) {
  if (tx.message.header.numRequiredSignatures !== 1) {
    throw new BadRequestError(`The transaction needs ${tx.message.header.numRequiredSignatures} signatures; only the wallet's can be asked for`, { code: 'SOLANA_CALL_UNSUPPORTED' })
  }
  const { base, lastValidBlockHeight, now } = await versionedRow(ctx, p, tx)
  return recordPrepared(ctx, p, base, Buffer.from(tx.message.serialize()).toString('base64'), lastValidBlockHeight, now)
}

/** A send prepared for the client to sign `message` (base64): its record and the prepared transaction, in one write. */
async function recordPrepared(ctx: Ctx, p: SendPlan, base: ReturnType<typeof solanaRow>, message: string, lastValidBlockHeight: number, now: number) {
  const { deps } = ctx
  const preparedId = newId()
  const expiresAt = now + deps.config.preparedTxTtlSeconds * 1000
  await deps.database.write(async (w) => {
    await insertTransaction(w, { ...base, status: 'awaiting_signature', requiresClientSigning: true, txHash: null, rawTx: null, submittedAt: null })
    await insertPrepared(w, {
      id: preparedId, tenantId: p.tenantId, userId: ctx.actor.userId, walletId: p.wallet.id, transactionId: base.id, family: 'solana',
      unsigned: message, signingPayload: message, status: 'prepared', expiresAt, usedAt: null, createdAt: now,
    })
  })
  return {
    id: base.id, status: 'awaiting_signature' as const, txHash: null, requiresClientSigning: true, preparedTransactionId: preparedId, chain: base.chain,
    isTestnet: base.isTestnet, message, signingScheme: 'solana-ed25519-message' as const, expiresAt: iso(expiresAt), lastValidBlockHeight,
  }
}

async function recordAndSubmit(ctx: Ctx, p: SendPlan, base: ReturnType<typeof solanaRow>, raw: Buffer, hash: string, now: number) {
  const { deps } = ctx
  const balances = await solanaBalances(deps, p.endpoint, p.wallet.address, p.token.address)
  await deps.database.write(async (w) => {
    // what the wallet holds beside its sends and holds in flight, checked where the send is recorded (amounts only)
    await ensureSpendable(w, { tenantId: p.tenantId, walletId: p.wallet.id, network: p.network }, balances, { tokenAddress: p.token.address, amount: p.amount, fee: 0n }, now, p.holdId ?? null)
    await insertTransaction(w, { ...base, status: 'pending', requiresClientSigning: false, txHash: hash, rawTx: raw.toString('base64'), submittedAt: now })
    if (p.holdId && !(await attachHold(w, p.tenantId, p.holdId, base.id, now))) throw new ConflictError('The amount held for this send was released before it was sent')
    await scheduleRefresh(w, base.id, base.tenantId, 1, now, deps.config.txRefreshFirstMs)
    // from here the send may reach the chain: an Idempotency-Key stays bound to it
    await ctx.idempotency?.bind(w, `transaction:${base.id}`)
  })
  const outcome = await solanaFamily.submit(deps, p.endpoint, raw.toString('base64'))
  if (outcome.kind === 'rejected' || outcome.kind === 'unreachable' || outcome.kind === 'nonce') {
    const reason = outcome.kind === 'rejected' ? outcome.reason : 'the network could not be reached'
    await deps.database.write(async (w) => {
      await updateTransaction(w, base.tenantId, base.id, { status: 'failed', failureReason: `not submitted: ${reason}`, updatedAt: deps.clock.now() })
      // nothing moved: the Idempotency-Key is free again
      await ctx.idempotency?.unbind(w)
    })
    if (outcome.kind === 'unreachable') throw blockchainError(503, 'NETWORK_UNAVAILABLE', `The ${p.endpoint.registryId} network is temporarily unavailable`, true)
    throw blockchainError(400, 'TRANSACTION_REJECTED', `The network refused the transaction: ${reason}`, false, 'Check the amount and balances, then send again')
  }
  return { id: base.id, status: 'pending' as const, txHash: hash, requiresClientSigning: false, chain: base.chain, isTestnet: base.isTestnet }
}

async function prepare(ctx: Ctx, p: SendPlan) {
  const { deps } = ctx
  const { tx, lastValidBlockHeight } = await build(deps, p)
  const now = deps.clock.now()
  return recordPrepared(ctx, p, solanaRow(ctx, p, now, tx, lastValidBlockHeight), tx.serializeMessage().toString('base64'), lastValidBlockHeight, now)
}

export const solanaFamily: ChainFamily = {
  quote,
  send,
  prepare,
  signed: async (p, input) => signedSolana(p, input),
  // Solana addresses are case-sensitive base58.
  isSigner: (signer, walletAddress) => signer === walletAddress,
  submit: async (deps, endpoint, raw) => (await rpcOf(deps, endpoint)).sendRaw(Buffer.from(raw, 'base64')),
  refresh: refreshSolana,
}
