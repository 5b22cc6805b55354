/**
 * The Solana node the tests send to: a LiteSVM-backed node (tests/fakes/solana-svm.ts, which
 * executes every transaction with the real System, SPL Token and associated token account
 * programs, and charges real fees) behind an HTTP JSON-RPC transport, with the token
 * registry's mints of both networks (`solana` and `solana-devnet`) created at start. This file
 * is the transport and its faults:
 * - `mode`: `error` answers HTTP 500 to everything, `hang` never answers, `ok` serves;
 * - `autoConfirm = false`: the node takes a transaction that passes preflight and answers its
 *   signature but never includes it (no status; its blockhash expires as blocks pass);
 * - `sent` / `sentVersioned`: the legacy and versioned transactions the node took, in order.
 * State comes from the SVM: `fund` airdrops SOL, `mintTo` mints a registry token (a real
 * MintTo, creating the owner's associated token account), `svm.advance(n)` passes blocks.
 */
import { Transaction, VersionedTransaction } from '@solana/web3.js'
import { createRegistryMints, SolanaSvm } from './solana-svm'
import { handleRpc } from './solana-svm-rpc'

export interface SentSolanaTx {
  signature: string
  tx: Transaction
}

export interface FakeSolana {
  url: string
  /** the node's state and execution */
  svm: SolanaSvm
  /** JSON-RPC methods received, in order */
  calls: string[]
  /** `error`: answer HTTP 500; `hang`: never answer; `ok`: normal */
  mode: 'ok' | 'error' | 'hang'
  /** legacy transactions the node took, in order */
  sent: SentSolanaTx[]
  /** versioned (v0) transactions the node took, in order */
  sentVersioned: Array<{ signature: string; tx: VersionedTransaction }>
  /** include taken transactions (default true); false: taken and never included */
  autoConfirm: boolean
  readonly blockHeight: number
  /** airdrops `lamports` to `address` (a transfer from the SVM's funded account) */
  fund(address: string, lamports: bigint): void
  /** mints `amount` of a registry mint to `owner`'s associated token account */
  mintTo(owner: string, mint: string, amount: bigint): void
  lamports(address: string): bigint
  tokenBalance(owner: string, mint: string): bigint
  stop(): void
}

export function startFakeSolana(): FakeSolana {
  const svm = new SolanaSvm()
  createRegistryMints(svm, 'solana')
  createRegistryMints(svm, 'solana-devnet')
  const calls: string[] = []
  const sent: SentSolanaTx[] = []
  const sentVersioned: Array<{ signature: string; tx: VersionedTransaction }> = []
  const state = { mode: 'ok' as FakeSolana['mode'], autoConfirm: true }
  const took = (raw: Uint8Array, signature: string) => {
    const vt = VersionedTransaction.deserialize(raw)
    if (vt.version === 'legacy') sent.push({ signature, tx: Transaction.from(raw) })
    else sentVersioned.push({ signature, tx: vt })
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      if (state.mode === 'error') return new Response('upstream failure', { status: 500 })
      if (state.mode === 'hang') return new Promise<Response>(() => {})
      const body = await req.json()
      return Response.json(handleRpc(svm, body as never, { seen: (m) => calls.push(m), land: () => state.autoConfirm, took }))
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`, svm, calls, sent, sentVersioned,
    get mode() { return state.mode },
    set mode(m) { state.mode = m },
    get autoConfirm() { return state.autoConfirm },
    set autoConfirm(v) { state.autoConfirm = v },
    get blockHeight() { return svm.blockHeight },
    fund: (address, lamports) => void svm.airdrop(address, lamports),
    mintTo: (owner, mint, amount) => void svm.mintTo(owner, mint, amount),
    lamports: (address) => svm.lamports(address),
    tokenBalance: (owner, mint) => svm.tokenBalance(owner, mint),
    stop: () => server.stop(true),
  }
}
