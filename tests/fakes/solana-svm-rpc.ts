/**
 * The Solana JSON-RPC methods over a SolanaSvm (tests/fakes/solana-svm.ts), in the shapes of
 * the real RPC so @solana/web3.js validates them: what the chain adapter calls
 * (`getBalance`, `getTokenAccountsByOwner` jsonParsed, `getLatestBlockhash`, `getFeeForMessage`,
 * `sendTransaction`, `getSignatureStatuses`, `getBlockHeight`, `getBlockTime`) and what a
 * developer's client asks beside them (`getAccountInfo`, `getTokenAccountBalance`,
 * `getMinimumBalanceForRentExemption`, `simulateTransaction`, `requestAirdrop`, `getSlot`,
 * `isBlockhashValid`, `getVersion`, `getHealth`, `getGenesisHash`). `handleRpc` answers a
 * JSON-RPC body (one call or a batch).
 */
import { base58 } from '@scure/base'
import type { ReadonlyUint8Array } from '@solana/kit'
import { PublicKey } from '@solana/web3.js'
import { readMint, readTokenAccount, RpcRefusal, TOKEN_PROGRAM, uiTokenAmount, type SolanaSvm } from './solana-svm'

type Params = unknown[]
interface Call { jsonrpc?: string; id?: unknown; method: string; params?: Params }

const bytesOf = (text: string, encoding?: string) => (encoding === 'base58' ? base58.decode(text) : Buffer.from(text, 'base64'))
const opts = (p: unknown) => (p && typeof p === 'object' ? p as Record<string, unknown> : {})

function parsedAccount(node: SolanaSvm, data: ReadonlyUint8Array) {
  const token = readTokenAccount(data)
  if (token) {
    const info = { isNative: false, mint: token.mint, owner: token.owner, state: token.state === 2 ? 'frozen' : 'initialized', tokenAmount: uiTokenAmount(token.amount, node.decimalsOf(token.mint)) }
    return { program: 'spl-token', space: data.length, parsed: { type: 'account', info } }
  }
  const mint = readMint(data)
  if (mint) return { program: 'spl-token', space: data.length, parsed: { type: 'mint', info: { decimals: mint.decimals, supply: mint.supply.toString(), mintAuthority: mint.mintAuthority, freezeAuthority: null, isInitialized: true } } }
  return null
}

function accountJson(node: SolanaSvm, a: { lamports: bigint | number; data: ReadonlyUint8Array; programAddress: string; executable: boolean }, encoding: unknown) {
  const base = { lamports: Number(a.lamports), owner: a.programAddress, executable: a.executable, rentEpoch: 0, space: a.data.length }
  const parsed = encoding === 'jsonParsed' && a.programAddress === TOKEN_PROGRAM.toBase58() ? parsedAccount(node, a.data) : null
  return { ...base, data: parsed ?? [Buffer.from(a.data as Uint8Array).toString('base64'), 'base64'] }
}

/** What a transport adds to `sendTransaction`: whether the node includes what it takes (default yes), and who hears what it took. */
export interface SendHooks {
  land?: () => boolean
  took?: (raw: Uint8Array, signature: string) => void
}

/** One method's result; throws RpcRefusal for an error answer. */
export function answer(node: SolanaSvm, method: string, params: Params, hooks: SendHooks = {}): unknown {
  const context = node.context
  switch (method) {
    case 'getLatestBlockhash':
      return { context, value: node.latestBlockhash() }
    case 'getBlockHeight':
      return node.blockHeight
    case 'getSlot':
      return node.slot
    case 'isBlockhashValid':
      return { context, value: node.isBlockhashValid(params[0] as string) }
    case 'getFeeForMessage':
      return { context, value: node.feeFor(Buffer.from(params[0] as string, 'base64')) }
    case 'getBlockTime': {
      const time = node.blockTime(params[0] as number)
      if (time === null) throw new RpcRefusal(-32004, `Block not available for slot ${params[0]}`)
      return time
    }
    case 'getMinimumBalanceForRentExemption':
      return Number(node.svm.minimumBalanceForRentExemption(BigInt(params[0] as number)))
    case 'sendTransaction': {
      const o = opts(params[1])
      const raw = bytesOf(params[0] as string, o.encoding as string | undefined)
      const signature = node.send(raw, { skipPreflight: o.skipPreflight === true, land: hooks.land?.() ?? true })
      hooks.took?.(raw, signature)
      return signature
    }
    case 'simulateTransaction': {
      const o = opts(params[1])
      return { context, value: node.simulate(bytesOf(params[0] as string, o.encoding as string | undefined)) }
    }
    case 'requestAirdrop':
      return node.airdrop(params[0] as string, BigInt(params[1] as number))
    case 'getSignatureStatuses':
      return {
        context,
        value: (params[0] as string[]).map((sig) => {
          const st = node.statuses.get(sig)
          return st ? { slot: st.slot, confirmations: null, err: st.err, status: st.err ? { Err: st.err } : { Ok: null }, confirmationStatus: 'finalized' } : null
        }),
      }
    case 'getBalance':
      return { context, value: Number(node.lamports(new PublicKey(params[0] as string).toBase58())) }
    case 'getAccountInfo': {
      const a = node.svm.getAccount(new PublicKey(params[0] as string).toBase58() as never)
      return { context, value: a.exists ? accountJson(node, a, opts(params[1]).encoding) : null }
    }
    case 'getTokenAccountBalance': {
      const a = node.svm.getAccount(new PublicKey(params[0] as string).toBase58() as never)
      const token = a.exists ? readTokenAccount(a.data) : null
      if (!token) throw new RpcRefusal(-32602, 'Invalid param: not a Token account')
      return { context, value: uiTokenAmount(token.amount, node.decimalsOf(token.mint)) }
    }
    case 'getTokenAccountsByOwner': {
      const filter = params[1] as { programId?: string; mint?: string }
      if (filter.programId && filter.programId !== TOKEN_PROGRAM.toBase58()) return { context, value: [] }
      const encoding = opts(params[2]).encoding
      return { context, value: node.tokenAccounts(params[0] as string, filter.mint).map((a) => ({ pubkey: a.pubkey, account: accountJson(node, a.account, encoding) })) }
    }
    case 'getVersion':
      return { 'solana-core': '2.2.0', 'feature-set': 0 }
    case 'getHealth':
      return 'ok'
    case 'getGenesisHash':
      return '11111111111111111111111111111111'
    default:
      throw new RpcRefusal(-32601, 'Method not found')
  }
}

/** A JSON-RPC body (one call or a batch) answered; `seen` hears each method's name. */
export function handleRpc(node: SolanaSvm, body: Call | Call[], hooks: SendHooks & { seen?: (method: string) => void; extra?: (method: string, params: Params) => unknown } = {}) {
  const one = (c: Call) => {
    hooks.seen?.(c.method)
    try {
      const extra = hooks.extra?.(c.method, c.params ?? [])
      return { jsonrpc: '2.0', id: c.id, result: extra !== undefined ? extra : answer(node, c.method, c.params ?? [], hooks) }
    } catch (err) {
      if (err instanceof RpcRefusal) return { jsonrpc: '2.0', id: c.id, error: { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) } }
      return { jsonrpc: '2.0', id: c.id, error: { code: -32602, message: `Invalid params: ${(err as Error).message}` } }
    }
  }
  return Array.isArray(body) ? body.map(one) : one(body)
}
