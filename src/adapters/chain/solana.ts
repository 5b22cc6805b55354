/**
 * Solana networks through @solana/web3.js (1.x). Connections are cached per RPC
 * address, with a timeout on every request and no retry on rate limits, so a down
 * RPC answers quickly. Token balances come from one `getTokenAccountsByOwner` call
 * (SPL Token program, jsonParsed), summed per mint. `rpc(endpoint)` is what sends use
 * (the port's SolanaRpc).
 */
import { base58 } from '@scure/base'
import { Connection, PublicKey } from '@solana/web3.js'
import { neverConnected } from './connect-errors'
import type { ChainEndpoint, SolanaRpc, SubmitOutcome } from './port'

export const TOKEN_PROGRAM_ID = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')

export class SolanaClients {
  private readonly connections = new Map<string, Connection>()

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
        try {
          await conn.sendRawTransaction(raw, { skipPreflight: false, maxRetries: 0 })
          return { kind: 'accepted' }
        } catch (err) {
          const outcome = classifySubmitError(err)
          // A refusal whose signature the node has after all (a gateway that lost the node's answer) was
          // submitted: as EVM asks for the hash. A status read that fails leaves it unknown, not refused.
          if (outcome.kind !== 'rejected' || raw[0] === undefined || raw[0] < 1 || raw.length < 65) return outcome
          const known = await conn.getSignatureStatuses([base58.encode(raw.subarray(1, 65))], { searchTransactionHistory: true }).then((r) => r.value[0] != null, () => true)
          return known ? { kind: 'unknown' } : outcome
        }
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
 * What a node's answer to a submission means: a refusal (the node answered an error: preflight,
 * signature), or no node reached: a connection never made, or a rate limit (429: refused before
 * it reached the node). Anything else (a time limit, a connection closed after the request was
 * written, another HTTP error status) may have reached the node: `unknown`, so the send stays
 * pending and the status job decides (confirmed, or failed once its blockhash expires).
 */
function classifySubmitError(err: unknown): SubmitOutcome {
  const name = (err as Error).name
  const msg = (err as Error).message ?? ''
  if (name === 'SendTransactionError' || /failed to send transaction|simulation failed/i.test(msg)) return { kind: 'rejected', reason: msg.replace(/https?:\/\/\S+/g, '<rpc>').slice(0, 300) }
  // @solana/web3.js answers an HTTP error status as `Error('<status> <text>: <body>')`
  if (neverConnected(err) || /^429 /.test(msg)) return { kind: 'unreachable' }
  return { kind: 'unknown' }
}
