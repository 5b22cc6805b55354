/**
 * Solana networks through @solana/web3.js (1.x). Connections are cached per RPC
 * address, with a timeout on every request and no retry on rate limits, so a down
 * RPC answers quickly. Token balances come from one `getTokenAccountsByOwner` call
 * (SPL Token program, jsonParsed), summed per mint. `rpc(endpoint)` is what sends use
 * (the port's SolanaRpc).
 */
import { base58 } from '@scure/base'
import { Connection, PublicKey } from '@solana/web3.js'
import { neverConnectedByCode } from './connect-errors'
import type { ChainEndpoint, SolanaRpc, SubmitOutcome } from './port'

export const TOKEN_PROGRAM_ID = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')

export class SolanaClients {
  private readonly connections = new Map<string, Connection>()
  private readonly posts = new Map<string, (body: string) => Promise<Response>>()

  constructor(private readonly timeoutMs: number, private readonly fetchFor: (endpoint: ChainEndpoint) => typeof fetch = () => fetch) {}

  connection(endpoint: ChainEndpoint): Connection {
    let c = this.connections.get(endpoint.rpcUrl)
    if (!c) {
      const timeoutMs = this.timeoutMs
      const rpcFetch = this.fetchFor(endpoint)
      // Connection speaks JSON-RPC over HTTP and derives its websocket itself.
      const url = endpoint.rpcUrl.replace(/^ws(s?):/, 'http$1:')
      c = new Connection(url, {
        commitment: 'confirmed',
        disableRetryOnRateLimit: true,
        fetch: ((input: string, init?: RequestInit) => rpcFetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) })) as unknown as typeof fetch,
      })
      this.connections.set(endpoint.rpcUrl, c)
    }
    return c
  }

  /**
   * A JSON-RPC POST to the endpoint with the connection's fetch and time limit: submissions are
   * sent with it rather than through web3.js, which drops an error answer's code and folds an
   * HTTP error status's body into its message.
   */
  private post(endpoint: ChainEndpoint): (body: string) => Promise<Response> {
    let p = this.posts.get(endpoint.rpcUrl)
    if (!p) {
      const rpcFetch = this.fetchFor(endpoint)
      const url = endpoint.rpcUrl.replace(/^ws(s?):/, 'http$1:')
      const timeoutMs = this.timeoutMs
      p = (body) => rpcFetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(timeoutMs) })
      this.posts.set(endpoint.rpcUrl, p)
    }
    return p
  }

  /** The port's SolanaRpc for the endpoint, at `confirmed` commitment. */
  rpc(endpoint: ChainEndpoint): SolanaRpc {
    const conn = this.connection(endpoint)
    return {
      latestBlockhash: () => conn.getLatestBlockhash('confirmed'),
      feeForMessage: async (message) => (await conn.getFeeForMessage(message, 'confirmed')).value,
      signatureStatus: async (signature) => (await conn.getSignatureStatuses([signature], { searchTransactionHistory: true })).value[0] ?? null,
      blockTime: (slot) => conn.getBlockTime(slot),
      blockHeight: () => conn.getBlockHeight('confirmed'),
      balancesAtLatest: async (address, mint) => {
        const owner = new PublicKey(address)
        const [native, accounts] = await Promise.all([
          conn.getBalanceAndContext(owner, 'confirmed'),
          mint ? conn.getParsedTokenAccountsByOwner(owner, { mint: new PublicKey(mint) }, 'confirmed') : Promise.resolve(null),
        ])
        let token = 0n
        for (const a of accounts?.value ?? []) {
          const amount = (a.account.data as { parsed?: { info?: { tokenAmount?: { amount?: string } } } }).parsed?.info?.tokenAmount?.amount
          if (amount && /^\d+$/.test(amount)) token += BigInt(amount)
        }
        // the older of the two views: a send confirmed between them is counted as in flight (refusing errs safe)
        const slot = Math.min(native.context.slot, accounts?.context.slot ?? native.context.slot)
        return { block: BigInt(slot), native: BigInt(native.value), token }
      },
      sendRaw: async (raw) => {
        const outcome = await submit(this.post(endpoint), raw)
        // A refusal whose signature the node has after all (a gateway that retried it elsewhere) was
        // submitted: as EVM asks for the hash. A status read that fails leaves it unknown, not refused.
        if (outcome.kind !== 'rejected' || raw[0] === undefined || raw[0] < 1 || raw.length < 65) return outcome
        const known = await conn.getSignatureStatuses([base58.encode(raw.subarray(1, 65))], { searchTransactionHistory: true }).then((r) => r.value[0] != null, () => true)
        return known ? { kind: 'unknown' } : outcome
      },
    }
  }

  async balances(endpoint: ChainEndpoint, address: string, mints: string[]) {
    const conn = this.connection(endpoint)
    const owner = new PublicKey(address)
    const [native, accounts] = await Promise.all([
      conn.getBalance(owner),
      mints.length ? conn.getParsedTokenAccountsByOwner(owner, { programId: TOKEN_PROGRAM_ID }) : Promise.resolve({ value: [] }),
    ])
    const byMint = new Map<string, bigint>()
    for (const a of accounts.value) {
      const info = (a.account.data as { parsed?: { info?: { mint?: string; tokenAmount?: { amount?: string } } } }).parsed?.info
      if (!info?.mint || !info.tokenAmount?.amount || !/^\d+$/.test(info.tokenAmount.amount)) continue
      byMint.set(info.mint, (byMint.get(info.mint) ?? 0n) + BigInt(info.tokenAmount.amount))
    }
    return { native: BigInt(native), tokens: mints.map((m) => byMint.get(m) ?? 0n) }
  }
}

/**
 * The node's own refusals of a transaction before sending it on: its preflight simulation failed
 * (-32002: blockhash not found, no funds for the fee, a failing instruction) or its signatures do
 * not verify or fit (-32003, -32013), or its version is not supported (-32015). Nothing was sent.
 */
const REFUSALS = new Set([-32002, -32003, -32013, -32015])

/**
 * Sends a signed transaction (`sendTransaction`, preflight on, no retries by the node) and reads
 * the answer: a refusal the node answers (REFUSALS, with HTTP 200) is `rejected`, except a
 * preflight that found the transaction already processed (it landed: `unknown`); no node
 * reached is `unreachable`: a connection never made (read from the error codes only) or a rate
 * limit (429, refused before it reached the node). Anything else may have reached the node: a
 * time limit, a connection closed after the request was written, any other HTTP status (a
 * gateway's 502, whatever its body says) or error answer (a gateway or an overloaded node, which
 * may have queued it): `unknown`, so the send stays pending with its key bound and the status
 * job decides (confirmed, or failed once its blockhash expires).
 */
async function submit(post: (body: string) => Promise<Response>, raw: Uint8Array): Promise<SubmitOutcome> {
  const request = {
    jsonrpc: '2.0',
    id: crypto.randomUUID(),
    method: 'sendTransaction',
    params: [Buffer.from(raw).toString('base64'), { encoding: 'base64', preflightCommitment: 'confirmed', maxRetries: 0 }],
  }
  let res: Response
  try {
    res = await post(JSON.stringify(request))
  } catch (err) {
    return neverConnectedByCode(err) ? { kind: 'unreachable' } : { kind: 'unknown' }
  }
  if (res.status === 429) return { kind: 'unreachable' }
  if (res.status < 200 || res.status > 299) return { kind: 'unknown' }
  let answer: { result?: unknown; error?: { code?: unknown; message?: unknown; data?: { err?: unknown } } }
  try {
    answer = (await res.json()) as typeof answer
  } catch {
    return { kind: 'unknown' }
  }
  if (typeof answer?.result === 'string') return { kind: 'accepted' }
  const error = answer?.error
  if (!error || typeof error.code !== 'number' || !REFUSALS.has(error.code)) return { kind: 'unknown' }
  const message = typeof error.message === 'string' ? error.message : `error ${error.code}`
  if (error.data?.err === 'AlreadyProcessed' || /already been processed/i.test(message)) return { kind: 'unknown' }
  return { kind: 'rejected', reason: message.replace(/https?:\/\/\S+/g, '<rpc>').slice(0, 300) }
}
