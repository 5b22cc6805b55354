/**
 * A fake Solana JSON-RPC node speaking the methods the chain adapter uses
 * (`getBalance`, `getTokenAccountsByOwner` with jsonParsed encoding), with balances the
 * test sets, and the send path: `getLatestBlockhash`, `sendTransaction` (signatures are
 * verified; the transaction is kept), `getSignatureStatuses`, `getFeeForMessage`,
 * `getBlockHeight`, `getBlockTime`. Versioned (v0) transactions are received too, in `sentVersioned`. It answers in the shapes of the real RPC, so
 * @solana/web3.js validates them.
 */
import { Keypair, Transaction, VersionedTransaction } from '@solana/web3.js'
import { ed25519 } from '@noble/curves/ed25519'
import { base58 } from '@scure/base'

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'

export interface SentSolanaTx {
  signature: string
  tx: Transaction
}

export interface FakeSolana {
  url: string
  /** lamports per address */
  lamports: Map<string, bigint>
  /** token accounts: owner → list of { mint, amount, decimals } */
  tokenAccounts: Map<string, Array<{ mint: string; amount: bigint; decimals: number }>>
  /** JSON-RPC methods received, in order */
  calls: string[]
  /** `error`: answer HTTP 500; `hang`: never answer; `ok`: normal */
  mode: 'ok' | 'error' | 'hang'
  /** transactions received by sendTransaction, in order */
  sent: SentSolanaTx[]
  /** versioned (v0) transactions received by sendTransaction, in order (signatures verified too) */
  sentVersioned: Array<{ signature: string; tx: VersionedTransaction }>
  /** confirm received transactions at once (default true); otherwise they stay unknown */
  autoConfirm: boolean
  blockHeight: number
  stop(): void
}

export function startFakeSolana(): FakeSolana {
  const lamports = new Map<string, bigint>()
  const tokenAccounts = new Map<string, Array<{ mint: string; amount: bigint; decimals: number }>>()
  const calls: string[] = []
  const context = { apiVersion: '2.2.0', slot: 1234 }
  const sent: SentSolanaTx[] = []
  const sentVersioned: Array<{ signature: string; tx: VersionedTransaction }> = []
  const chain = { autoConfirm: true, blockHeight: 1000 }
  const statuses = new Map<string, { slot: number }>()
  const answer = (method: string, params: unknown[]): unknown => {
    switch (method) {
      case 'getLatestBlockhash':
        return { context, value: { blockhash: Keypair.generate().publicKey.toBase58(), lastValidBlockHeight: chain.blockHeight + 150 } }
      case 'getBlockHeight':
        return chain.blockHeight
      case 'getFeeForMessage':
        return { context, value: 5000 }
      case 'getBlockTime':
        return 1_790_000_000
      case 'sendTransaction': {
        const bytes = Buffer.from(params[0] as string, 'base64')
        const versioned = VersionedTransaction.deserialize(bytes)
        if (versioned.version !== 'legacy') {
          const message = versioned.message.serialize()
          const signers = versioned.message.header.numRequiredSignatures
          const ok = Array.from({ length: signers }, (_, i) => ed25519.verify(versioned.signatures[i]!, message, versioned.message.staticAccountKeys[i]!.toBytes())).every(Boolean)
          if (!ok) return { error: { code: -32003, message: 'Transaction signature verification failure' } }
          const signature = base58.encode(versioned.signatures[0]!)
          sentVersioned.push({ signature, tx: versioned })
          if (chain.autoConfirm) statuses.set(signature, { slot: context.slot + sent.length + sentVersioned.length })
          return signature
        }
        const tx = Transaction.from(bytes)
        if (!tx.verifySignatures()) return { error: { code: -32003, message: 'Transaction signature verification failure' } }
        const signature = base58.encode(tx.signature!)
        sent.push({ signature, tx })
        if (chain.autoConfirm) statuses.set(signature, { slot: context.slot + sent.length })
        return signature
      }
      case 'getSignatureStatuses':
        return {
          context,
          value: (params[0] as string[]).map((sig) => {
            const st = statuses.get(sig)
            return st ? { slot: st.slot, confirmations: null, err: null, status: { Ok: null }, confirmationStatus: 'finalized' } : null
          }),
        }
      case 'getBalance':
        return { context, value: Number(lamports.get(params[0] as string) ?? 0n) }
      case 'getTokenAccountsByOwner': {
        const owner = params[0] as string
        const filter = params[1] as { programId?: string; mint?: string }
        const list = (tokenAccounts.get(owner) ?? []).filter((a) => !filter.mint || a.mint === filter.mint)
        return {
          context,
          value: filter.programId && filter.programId !== TOKEN_PROGRAM ? [] : list.map((a, i) => ({
            pubkey: fakeAccountAddress(i),
            account: {
              executable: false, lamports: 2039280, owner: TOKEN_PROGRAM, rentEpoch: 0, space: 165,
              data: {
                program: 'spl-token', space: 165,
                parsed: { type: 'account', info: { isNative: false, mint: a.mint, owner, state: 'initialized', tokenAmount: { amount: a.amount.toString(), decimals: a.decimals, uiAmount: Number(a.amount) / 10 ** a.decimals, uiAmountString: String(Number(a.amount) / 10 ** a.decimals) } } },
              },
            },
          })),
        }
      }
      default:
        return undefined
    }
  }
  const state = { mode: 'ok' as FakeSolana['mode'] }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      if (state.mode === 'error') return new Response('upstream failure', { status: 500 })
      if (state.mode === 'hang') return new Promise<Response>(() => {})
      const body = (await req.json()) as { id: unknown; method: string; params?: unknown[] } | Array<{ id: unknown; method: string; params?: unknown[] }>
      const one = (r: { id: unknown; method: string; params?: unknown[] }) => {
        calls.push(r.method)
        const result = answer(r.method, r.params ?? []) as { error?: unknown } | undefined
        if (result && typeof result === 'object' && 'error' in result) return { jsonrpc: '2.0', id: r.id, error: result.error }
        return result === undefined ? { jsonrpc: '2.0', id: r.id, error: { code: -32601, message: 'Method not found' } } : { jsonrpc: '2.0', id: r.id, result }
      }
      return Response.json(Array.isArray(body) ? body.map(one) : one(body))
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`, lamports, tokenAccounts, calls, sent, sentVersioned,
    get mode() { return state.mode },
    set mode(m) { state.mode = m },
    get autoConfirm() { return chain.autoConfirm },
    set autoConfirm(v) { chain.autoConfirm = v },
    get blockHeight() { return chain.blockHeight },
    set blockHeight(v) { chain.blockHeight = v },
    stop: () => server.stop(true),
  }
}

// Valid base58 public keys for the token accounts the fake lists.
const ACCOUNTS = ['7YttLkHDoNj9wyDur5pM1ejNaAvT9X4eqaYcHQqtj2G5', '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin', 'SysvarRent111111111111111111111111111111111']
const fakeAccountAddress = (i: number) => ACCOUNTS[i % ACCOUNTS.length]!
