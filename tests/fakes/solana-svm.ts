/**
 * A Solana node over LiteSVM (the `litesvm` package: the real System, SPL Token and
 * associated token account programs, real signature checks and fees, in process), answering
 * the JSON-RPC methods the chain adapter and a developer's client use. It has no transport:
 * tests/fakes/solana-rpc.ts serves it over HTTP with the faults the tests inject, and
 * scripts/devnet/solana.ts serves it as the devnet's Solana endpoint.
 *
 * What the SVM does not model, the node does as a validator would:
 * - blocks: each transaction that lands is a block of its own (slot and block height + 1, a
 *   new blockhash), and `advance(n)` passes n empty blocks;
 * - blockhashes: each is valid for 150 blocks after it was issued (`lastValidBlockHeight`),
 *   checked here (LiteSVM itself knows only its latest one);
 * - preflight: `sendTransaction` simulates first unless `skipPreflight`, and a failure is the
 *   RPC's -32002 with the error and logs; a signature that does not verify is -32003;
 * - statuses: a landed transaction is `finalized` at once, with its error if it failed (a
 *   failed transaction still pays its fee, as on mainnet).
 */
import { getTransactionDecoder, type Address } from '@solana/kit'
import { base58 } from '@scure/base'
import { Keypair, PublicKey, SystemProgram, Transaction, TransactionInstruction, VersionedMessage, VersionedTransaction } from '@solana/web3.js'
import { FailedTransactionMetadata, LiteSVM } from 'litesvm'
import { lookupChain } from '../../src/adapters/chain/registry'
import { associatedTokenAddress, mintData, readMint, readTokenAccount, rpcError, tokenAccountData, TOKEN_PROGRAM, ATA_PROGRAM, uiTokenAmount, type RpcTransactionError } from './solana-svm-spl'

export const LAMPORTS_PER_SIGNATURE = 5000
const VALID_BLOCKS = 150
const addr = (a: string | PublicKey) => (typeof a === 'string' ? a : a.toBase58()) as Address

/** a refusal the RPC answers as a JSON-RPC error */
export class RpcRefusal extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message)
  }
}

export interface LandedStatus { slot: number; err: RpcTransactionError | null }

/** The node's own bookkeeping beside the SVM's accounts: what a snapshot keeps. */
export interface NodeState { slot: number; blockHeight: number; hashes: Array<[string, number]>; statuses: Array<[string, LandedStatus]>; blockTimes: Array<[number, number]> }

/** An account as a snapshot keeps it (data base64, amounts as decimal text). */
export interface SavedAccount { address: string; data: string; executable: boolean; lamports: string; programAddress: string; space: string }

/** What the devnet keeps across a restart: every account a transaction, an airdrop or a set touched, and the node's bookkeeping. */
export interface Snapshot { accounts: SavedAccount[]; state: NodeState }

export class SolanaSvm {
  readonly svm: LiteSVM
  slot = 1234
  blockHeight = 1000
  /** blockhash → its last valid block height */
  private readonly hashes = new Map<string, number>()
  readonly statuses = new Map<string, LandedStatus>()
  private readonly blockTimes = new Map<number, number>()
  /**
   * Every account a transaction named, an airdrop funded or a set wrote: what a snapshot saves.
   * (litesvm 1.4.1, whose platform packages exist for every platform, cannot serialise itself.)
   */
  private readonly touched = new Set<string>()
  /** the mints' authority (public and for tests and the devnet only): `mintTo` signs with it */
  readonly mintAuthority = Keypair.fromSeed(new Uint8Array(32).fill(7))

  constructor(snapshot?: Snapshot) {
    this.svm = new LiteSVM().withBlockhashCheck(false)
    if (snapshot) {
      Object.assign(this, { slot: snapshot.state.slot, blockHeight: snapshot.state.blockHeight })
      for (const [k, v] of snapshot.state.hashes) this.hashes.set(k, v)
      for (const [k, v] of snapshot.state.statuses) this.statuses.set(k, v)
      for (const [k, v] of snapshot.state.blockTimes) this.blockTimes.set(k, v)
      for (const a of snapshot.accounts) {
        this.svm.setAccount({
          address: addr(a.address), data: new Uint8Array(Buffer.from(a.data, 'base64')), executable: a.executable,
          lamports: BigInt(a.lamports) as never, programAddress: addr(a.programAddress), space: BigInt(a.space),
        })
        this.touched.add(a.address)
      }
    }
    this.svm.warpToSlot(BigInt(this.slot))
    this.hashes.set(this.svm.latestBlockhash(), this.blockHeight + VALID_BLOCKS)
    if (!snapshot) this.airdrop(this.mintAuthority.publicKey.toBase58(), 1_000_000_000_000n)
  }

  snapshot(): Snapshot {
    const accounts: SavedAccount[] = []
    for (const address of this.touched) {
      const a = this.svm.getAccount(addr(address))
      if (!a.exists) continue
      accounts.push({
        address, data: Buffer.from(a.data).toString('base64'), executable: a.executable, lamports: String(a.lamports),
        programAddress: String(a.programAddress), space: String(a.space),
      })
    }
    const state = { slot: this.slot, blockHeight: this.blockHeight, hashes: [...this.hashes], statuses: [...this.statuses], blockTimes: [...this.blockTimes] }
    return { accounts, state }
  }

  get context() {
    return { apiVersion: '2.2.0', slot: this.slot }
  }

  latestBlockhash() {
    const blockhash = this.svm.latestBlockhash()
    return { blockhash, lastValidBlockHeight: this.hashes.get(blockhash)! }
  }

  /** `n` blocks pass (empty but the last): the slot and height move on, a new blockhash is issued, older ones expire after their 150 blocks. */
  advance(n = 1) {
    this.slot += n
    this.blockHeight += n
    this.svm.warpToSlot(BigInt(this.slot))
    this.svm.expireBlockhash()
    this.hashes.set(this.svm.latestBlockhash(), this.blockHeight + VALID_BLOCKS)
    for (const [h, last] of this.hashes) if (last < this.blockHeight) this.hashes.delete(h)
    this.blockTimes.set(this.slot, Math.floor(Date.now() / 1000))
  }

  lamports(address: string): bigint {
    return this.svm.getBalance(addr(address)) ?? 0n
  }

  /** The SVM's airdrop (a System transfer from its funded account), landing in a block: the signature. */
  airdrop(address: string, lamports: bigint): string {
    const r = this.svm.airdrop(addr(address), lamports as never)
    if (!r || r instanceof FailedTransactionMetadata) throw new RpcRefusal(-32600, `airdrop failed: ${r ? rpcError(r.err()).message : 'no result'}`)
    this.touched.add(address)
    const signature = base58.encode(r.signature())
    this.advance()
    this.statuses.set(signature, { slot: this.slot, err: null })
    return signature
  }

  /** Creates (or overwrites) an initialized mint at `address`, minted by `mintAuthority`. */
  createMint(address: string, decimals: number) {
    const data = mintData(this.mintAuthority.publicKey, decimals)
    this.touched.add(address)
    this.svm.setAccount({ address: addr(address), data, executable: false, lamports: this.svm.minimumBalanceForRentExemption(BigInt(data.length)) as never, programAddress: addr(TOKEN_PROGRAM), space: BigInt(data.length) })
  }

  /** Mints `amount` to `owner`'s associated token account (created in the same transaction if missing): a real transaction on the SVM. */
  mintTo(owner: string, mint: string, amount: bigint): string {
    const [o, m, payer] = [new PublicKey(owner), new PublicKey(mint), this.mintAuthority.publicKey]
    const ata = associatedTokenAddress(o, m)
    const data = Buffer.alloc(9)
    data[0] = 7 // MintTo
    data.writeBigUInt64LE(amount, 1)
    const tx = new Transaction({ feePayer: payer, ...this.latestBlockhash() }).add(
      new TransactionInstruction({ programId: ATA_PROGRAM, data: Buffer.from([1]), keys: [
        { pubkey: payer, isSigner: true, isWritable: true }, { pubkey: ata, isSigner: false, isWritable: true }, { pubkey: o, isSigner: false, isWritable: false },
        { pubkey: m, isSigner: false, isWritable: false }, { pubkey: SystemProgram.programId, isSigner: false, isWritable: false }, { pubkey: TOKEN_PROGRAM, isSigner: false, isWritable: false },
      ] }),
      new TransactionInstruction({ programId: TOKEN_PROGRAM, data, keys: [{ pubkey: m, isSigner: false, isWritable: true }, { pubkey: ata, isSigner: false, isWritable: true }, { pubkey: payer, isSigner: true, isWritable: false }] }),
    )
    tx.sign(this.mintAuthority)
    const signature = this.send(tx.serialize())
    const st = this.statuses.get(signature)
    if (st?.err) throw new RpcRefusal(-32600, `mintTo failed: ${JSON.stringify(st.err)}`)
    return signature
  }

  /** Writes a token account directly (an account the SVM could hold, set without a transaction): `address` defaults to the owner's associated one. */
  setTokenAccount(owner: string, mint: string, amount: bigint, address?: string) {
    const data = tokenAccountData(new PublicKey(mint), new PublicKey(owner), amount)
    const at = address ?? associatedTokenAddress(new PublicKey(owner), new PublicKey(mint)).toBase58()
    this.touched.add(at)
    this.svm.setAccount({ address: addr(at), data, executable: false, lamports: this.svm.minimumBalanceForRentExemption(BigInt(data.length)) as never, programAddress: addr(TOKEN_PROGRAM), space: BigInt(data.length) })
  }

  /** The token accounts `owner` holds, of `mint` if given. */
  tokenAccounts(owner: string, mint?: string) {
    return this.svm.getProgramAccounts(addr(TOKEN_PROGRAM))
      .map((a) => ({ pubkey: a.address as string, account: a, parsed: readTokenAccount(a.data) }))
      .filter((a) => a.parsed && a.parsed.owner === owner && (!mint || a.parsed.mint === mint))
  }

  tokenBalance(owner: string, mint: string): bigint {
    return this.tokenAccounts(owner, mint).reduce((sum, a) => sum + a.parsed!.amount, 0n)
  }

  decimalsOf(mint: string): number {
    const a = this.svm.getAccount(addr(mint))
    return (a.exists && readMint(a.data)?.decimals) || 0
  }

  /**
   * A signed transaction as `sendTransaction` takes it (wire bytes): checked as a validator
   * would, simulated unless `skipPreflight`, then executed unless `land` is false (a node that
   * takes it and never includes it). Answers the signature; throws RpcRefusal for a refusal.
   */
  send(raw: Uint8Array, opts: { skipPreflight?: boolean; land?: boolean } = {}): string {
    const { kit, signature, blockhash } = this.decode(raw)
    if (this.statuses.has(signature)) throw preflightFailure('AlreadyProcessed', 'This transaction has already been processed')
    const lastValid = this.hashes.get(blockhash)
    if (lastValid === undefined || lastValid < this.blockHeight) throw preflightFailure('BlockhashNotFound', 'Blockhash not found')
    if (!opts.skipPreflight) {
      const sim = this.svm.simulateTransaction(kit)
      if (sim instanceof FailedTransactionMetadata) {
        const { err, message } = rpcError(sim.err())
        if (err === 'SignatureFailure') throw new RpcRefusal(-32003, 'Transaction signature verification failure')
        throw preflightFailure(err, message, sim.meta().logs())
      }
    }
    if (opts.land === false) return signature
    for (const key of VersionedTransaction.deserialize(raw).message.staticAccountKeys) this.touched.add(key.toBase58())
    const r = this.svm.sendTransaction(kit)
    if (r instanceof FailedTransactionMetadata) {
      const { err } = rpcError(r.err())
      // not includable (no fee payer, bad signature...): dropped by the leader, no status
      if (typeof err === 'string') return signature
      this.advance()
      this.statuses.set(signature, { slot: this.slot, err })
      return signature
    }
    this.advance()
    this.statuses.set(signature, { slot: this.slot, err: null })
    return signature
  }

  /** Simulates without landing: the RPC's `simulateTransaction` value. */
  simulate(raw: Uint8Array) {
    const { kit } = this.decode(raw)
    const sim = this.svm.simulateTransaction(kit)
    if (sim instanceof FailedTransactionMetadata) return { err: rpcError(sim.err()).err, logs: sim.meta().logs(), accounts: null, unitsConsumed: Number(sim.meta().computeUnitsConsumed()) }
    return { err: null, logs: sim.meta().logs(), accounts: null, unitsConsumed: Number(sim.meta().computeUnitsConsumed()) }
  }

  feeFor(message: Uint8Array): number {
    return VersionedMessage.deserialize(message).header.numRequiredSignatures * LAMPORTS_PER_SIGNATURE
  }

  blockTime(slot: number): number | null {
    return this.blockTimes.get(slot) ?? (slot <= this.slot ? Math.floor(Date.now() / 1000) : null)
  }

  isBlockhashValid(blockhash: string) {
    const last = this.hashes.get(blockhash)
    return last !== undefined && last >= this.blockHeight
  }

  private decode(raw: Uint8Array) {
    let vt: VersionedTransaction
    let kit: ReturnType<ReturnType<typeof getTransactionDecoder>['decode']>
    try {
      vt = VersionedTransaction.deserialize(raw)
      kit = getTransactionDecoder().decode(raw)
    } catch (err) {
      throw new RpcRefusal(-32602, `invalid transaction: failed to deserialize: ${(err as Error).message}`)
    }
    const first = vt.signatures[0]
    if (!first || first.every((b) => b === 0)) throw new RpcRefusal(-32003, 'Transaction signature verification failure')
    return { vt, kit, signature: base58.encode(first), blockhash: vt.message.recentBlockhash }
  }
}

/** Creates the token registry's SPL mints of `network` (`solana`, `solana-devnet`) on the node, at the registry's addresses and decimals. */
export function createRegistryMints(node: SolanaSvm, network: 'solana' | 'solana-devnet') {
  const tokens = lookupChain(network)?.network.tokens.filter((t) => t.address !== null) ?? []
  for (const t of tokens) node.createMint(t.address!, t.decimals)
  return tokens.map((t) => ({ symbol: t.symbol, address: t.address!, decimals: t.decimals }))
}

const preflightFailure = (err: RpcTransactionError, message: string, logs: string[] = []) =>
  new RpcRefusal(-32002, `Transaction simulation failed: ${message}`, { err, logs, accounts: null, unitsConsumed: 0 })

export { associatedTokenAddress, uiTokenAmount, readMint, readTokenAccount, TOKEN_PROGRAM }
