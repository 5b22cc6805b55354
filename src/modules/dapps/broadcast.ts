/**
 * `POST /v1/dapps/broadcast`: a transaction a dApp had the user's own wallet sign (no prepared
 * transaction behind it), decoded here, its signer recovered, checked to be one of the
 * caller's wallets on the named chain and signed for that network, then recorded and
 * submitted by the transactions module (`submitClientSigned`), so it shows in the history as
 * type `dapp` and the status job follows it.
 *
 * EVM: `0x` hex of a signed legacy (EIP-155 chain id required: one without is valid on every
 * chain), EIP-2930, EIP-1559 or EIP-7702 transaction; the sender is recovered from its
 * signature; its chain id must be the one the network's RPC reports. EIP-4844 (blob)
 * transactions are refused: the blobs do not travel with the signed bytes.
 * Solana: base64 of a signed legacy or v0 transaction; the fee payer (first signer) is the
 * sender, and every signature the message requires must be present and verify.
 */
import { ed25519 } from '@noble/curves/ed25519'
import { base58, base64 } from '@scure/base'
import { SystemProgram, VersionedTransaction } from '@solana/web3.js'
import { getAddress, keccak256, parseTransaction, recoverTransactionAddress, type Hex } from 'viem'
import type { Family } from '../../adapters/chain/port'
import type { Ctx } from '../../context'
import { BadRequestError } from '../../lib/errors'
import { tenantOf } from '../tenants'
import { chainEnabled, endpointFor, lookupChain, namedChain } from '../tokens'
import { transactions, blockchainError, signatureDecodeFailed } from '../transactions'
import * as walletsRepo from '../wallets'
import { addressKeyOf } from '../wallets'
import type { DappBroadcastBody } from './model'

interface Decoded {
  /** as the family submits it: EVM hex, Solana base64 */
  raw: string
  txHash: string
  signer: string
  /** EVM: the chain id signed for */
  chainId: number | null
  toAddress: string | null
  amount: bigint
  nonce: number | null
  gasLimit: string | null
  maxFeePerGas: string | null
  maxPriorityFeePerGas: string | null
  metadata: Record<string, unknown>
}

const chainIdMismatch = (message: string) => blockchainError(400, 'CHAIN_ID_MISMATCH', message, false, 'Sign the transaction for the chain id of the network named by `chain`')
const wrongSender = (signer: string, chain: string) => blockchainError(
  400,
  'WRONG_SIGNER',
  `The transaction was signed by ${signer}, which is not one of your wallets on ${chain}`,
  false,
  'Sign with one of your wallets on that chain (register a non-custodial wallet with POST /v1/wallets/client)',
)

async function decodeEvm(text: string): Promise<Decoded> {
  if (!/^0x([0-9a-fA-F]{2})+$/.test(text)) throw signatureDecodeFailed('an EVM signed transaction is `0x` hex')
  const raw = text.toLowerCase() as Hex
  let tx: ReturnType<typeof parseTransaction>
  try {
    tx = parseTransaction(raw)
  } catch (err) {
    throw signatureDecodeFailed((err as Error).message.split('\n')[0]!.slice(0, 200))
  }
  if (tx.type === 'eip4844') throw blockchainError(400, 'TRANSACTION_TYPE_UNSUPPORTED', 'EIP-4844 (blob) transactions cannot be broadcast here: their blobs do not travel with the signed bytes', false)
  if (!tx.r || !tx.s) throw signatureDecodeFailed('the transaction is not signed')
  if (tx.chainId === undefined) throw chainIdMismatch('The transaction is not bound to a chain (a legacy transaction without an EIP-155 chain id is valid on every chain): refused')
  let signer: string
  try {
    signer = await recoverTransactionAddress({ serializedTransaction: raw as never })
  } catch {
    throw signatureDecodeFailed('no signer can be recovered from its signature')
  }
  const fees = tx.type === 'legacy' || tx.type === 'eip2930'
    ? { maxFeePerGas: tx.gasPrice?.toString() ?? null, maxPriorityFeePerGas: tx.gasPrice?.toString() ?? null }
    : { maxFeePerGas: tx.maxFeePerGas?.toString() ?? null, maxPriorityFeePerGas: tx.maxPriorityFeePerGas?.toString() ?? null }
  return {
    raw, txHash: keccak256(raw), signer, chainId: tx.chainId, toAddress: tx.to ? getAddress(tx.to) : null, amount: tx.value ?? 0n, nonce: tx.nonce ?? 0,
    gasLimit: tx.gas?.toString() ?? null, ...fees,
    metadata: { transactionType: tx.type, methodSelector: tx.data && tx.data.length >= 10 ? tx.data.slice(0, 10) : null },
  }
}

/** Lamports moved from the fee payer by System program transfers, and the one recipient when there is one. */
function systemTransfers(vt: VersionedTransaction) {
  const keys = vt.message.staticAccountKeys
  let amount = 0n
  const to = new Set<string>()
  for (const ix of vt.message.compiledInstructions) {
    const program = keys[ix.programIdIndex]
    const data = Buffer.from(ix.data)
    // System program instruction 2 (Transfer): u32 index, u64 lamports; accounts [from, to]
    if (!program?.equals(SystemProgram.programId) || data.length !== 12 || data.readUInt32LE(0) !== 2) continue
    if (ix.accountKeyIndexes[0] !== 0) continue
    amount += data.readBigUInt64LE(4)
    const dest = keys[ix.accountKeyIndexes[1]!]
    if (dest) to.add(dest.toBase58())
  }
  return { amount, toAddress: to.size === 1 ? [...to][0]! : null }
}

function decodeSolana(text: string): Decoded {
  let vt: VersionedTransaction
  try {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) throw new Error('not base64')
    vt = VersionedTransaction.deserialize(base64.decode(text))
  } catch {
    throw signatureDecodeFailed('a Solana signed transaction is the transaction\'s bytes in base64')
  }
  const message = vt.message.serialize()
  const required = vt.message.header.numRequiredSignatures
  const keys = vt.message.staticAccountKeys
  if (required < 1 || vt.signatures.length < required) throw signatureDecodeFailed('the transaction is not signed')
  for (let i = 0; i < required; i++) {
    const sig = vt.signatures[i]!
    if (sig.every((b) => b === 0)) throw signatureDecodeFailed(`the signature of ${keys[i]!.toBase58()} is missing`)
    let valid = false
    try {
      valid = ed25519.verify(sig, message, keys[i]!.toBytes())
    } catch { /* malformed: not valid */ }
    if (!valid) {
      throw blockchainError(
        400,
        'SIGNATURE_INVALID',
        `The signature of ${keys[i]!.toBase58()} does not verify over the transaction's message`,
        false,
        'Sign the transaction again with the wallet\'s key',
      )
    }
  }
  const { amount, toAddress } = systemTransfers(vt)
  return {
    raw: base64.encode(vt.serialize()), txHash: base58.encode(vt.signatures[0]!), signer: keys[0]!.toBase58(), chainId: null, toAddress, amount,
    nonce: null, gasLimit: null, maxFeePerGas: null, maxPriorityFeePerGas: null,
    metadata: { transactionType: vt.version === 'legacy' ? 'legacy' : `v${vt.version}`, recentBlockhash: vt.message.recentBlockhash },
  }
}

export async function broadcastSigned(ctx: Ctx, input: DappBroadcastBody) {
  const tenant = tenantOf(ctx)
  const found = lookupChain(input.chain)
  const named = namedChain(input.chain)
  if (!found || !named || !chainEnabled(tenant.settings, found.chain.id)) throw new BadRequestError(`Unsupported chain: ${input.chain}`)
  const family: Family = found.chain.family
  const d = family === 'evm' ? await decodeEvm(input.signedTransaction.trim()) : decodeSolana(input.signedTransaction.trim())
  // The caller's live wallets on the named chain with the signer's address (one per network at most).
  const { rows } = await walletsRepo.listUserWallets(ctx.deps.database.db, tenant.id, ctx.actor.userId, { chain: found.chain.id, isTestnet: named.isTestnet })
  const mine = rows.filter((w) => !w.isWatchOnly && w.addressKey === addressKeyOf(family, d.signer))
  if (!mine.length) throw wrongSender(d.signer, input.chain)
  // A family id names both networks: an EVM transaction's chain id picks one; a Solana transaction names none, so mainnet unless only the devnet wallet is the caller's.
  const wallet = family === 'evm'
    ? mine.find((w) => (w.isTestnet ? found.chain.testnet : found.chain.mainnet).chainId === d.chainId) ?? mine.find((w) => !w.isTestnet) ?? mine[0]!
    : mine.find((w) => !w.isTestnet) ?? mine[0]!
  const { endpoint } = endpointFor(ctx.deps.config, tenant.settings, wallet.chain, wallet.isTestnet)
  let metadata = d.metadata
  if (family === 'evm') {
    // what signatures commit to is the chain id the network's RPC reports (as sends sign for)
    const net = await transactions.evmNet(ctx.deps, endpoint)
    if (net.chainId !== d.chainId) throw chainIdMismatch(`The transaction is signed for chain id ${d.chainId}; ${endpoint.registryId} is chain id ${net.chainId}`)
  } else {
    // A blockhash is valid for 150 blocks: the status job gives the transaction up past the node's height now + 150 (as sendVersioned).
    const rpc = await ctx.deps.chain.solanaRpc(endpoint)
    const height = await ctx.deps.chain.guard(endpoint, 'blockHeight', () => rpc.blockHeight())
    metadata = { ...metadata, lastValidBlockHeight: height + 150 }
  }
  const out = await transactions.submitClientSigned(ctx, {
    wallet, endpoint, type: 'dapp', raw: d.raw, txHash: d.txHash, toAddress: d.toAddress, amount: d.amount, chainId: d.chainId, nonce: d.nonce,
    gasLimit: d.gasLimit, maxFeePerGas: d.maxFeePerGas, maxPriorityFeePerGas: d.maxPriorityFeePerGas, metadata,
  })
  return { ...out, type: 'dapp' as const }
}
