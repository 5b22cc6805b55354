/**
 * A local server speaking LI.FI's quote API (`GET /v1/quote`): a well-formed step by default,
 * or, by `mode`, each way the real service or the network can fail: slow beyond a time limit,
 * code 1002 (HTTP 404, no quote), a 400 validation refusal with LI.FI's `{ message, code }`,
 * a 500, a 429, an answer that is not JSON, or a step missing the fields Slipway reads; and
 * the routes the spec refuses: one delivering another token (`other-token`), one that is a
 * message to sign on the destination chain rather than a transaction (`destination-signature`,
 * LI.FI's `typedData` without `transactionRequest`), and one whose included step on the
 * destination chain carries its own transaction (`destination-transaction`). It records each
 * request's query and `x-lifi-api-key` header.
 */
import { Keypair, PublicKey, SystemProgram, TransactionMessage, VersionedTransaction } from '@solana/web3.js'

export type FakeLifiMode = 'ok' | 'slow' | 'no-route' | 'refused' | 'server-error' | 'rate-limited' | 'garbage' | 'incomplete' | 'other-token' | 'destination-signature' | 'destination-transaction'

/** what `other-token` delivers instead of the token asked for (a bridged USDC, as LI.FI may route to) */
export const FAKE_OTHER_TOKEN = '0x2a22f9c3b484c3629090FeED35F17Ff8F88f76F0'

export class FakeLifi {
  mode: FakeLifiMode = 'ok'
  /** the symbol `other-token` names its token by (LI.FI's text: a test may make it prose) */
  otherTokenSymbol = 'USDC.e'
  /** how long `slow` waits before answering */
  slowMs = 10_000
  readonly requests: Array<{ path: string; query: Record<string, string>; apiKey: string | null }> = []
  /** the recent blockhash of a Solana source's transaction: the Solana node's latest where one runs (as LI.FI reads mainnet's), else any */
  solanaBlockhash: () => string = () => Keypair.generate().publicKey.toBase58()
  private server?: ReturnType<typeof Bun.serve>

  start() {
    this.server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: async (req) => {
        const url = new URL(req.url)
        this.requests.push({ path: url.pathname, query: Object.fromEntries(url.searchParams), apiKey: req.headers.get('x-lifi-api-key') })
        if (url.pathname !== '/v1/quote') return Response.json({ message: 'Not found', code: 1003 }, { status: 404 })
        switch (this.mode) {
          case 'slow':
            await Bun.sleep(this.slowMs)
            return Response.json(step(url.searchParams, this.solanaBlockhash))
          case 'no-route':
            return Response.json({ message: 'No available quotes for the requested transfer', code: 1002 }, { status: 404 })
          case 'refused':
            return Response.json({ message: 'Invalid fromAddress: not an address', code: 1011 }, { status: 400 })
          case 'server-error':
            return Response.json({ message: 'Internal server error', code: 1006 }, { status: 500 })
          case 'rate-limited':
            return Response.json({ message: 'Too many requests', code: 1005 }, { status: 429 })
          case 'garbage':
            return new Response('<html>upstream hiccup</html>{', { status: 200, headers: { 'content-type': 'application/json' } })
          case 'incomplete': {
            const s = step(url.searchParams, this.solanaBlockhash) as { estimate: Record<string, unknown>; transactionRequest?: unknown }
            delete s.estimate.toAmountMin
            delete s.transactionRequest
            return Response.json(s)
          }
          case 'other-token': {
            const s = step(url.searchParams, this.solanaBlockhash)
            s.action.toToken = { ...s.action.toToken, address: FAKE_OTHER_TOKEN, symbol: this.otherTokenSymbol, decimals: 6 }
            return Response.json(s)
          }
          case 'destination-signature': {
            const s = step(url.searchParams, this.solanaBlockhash) as Omit<ReturnType<typeof step>, 'transactionRequest'> & { transactionRequest?: unknown; typedData?: unknown[]; executionType?: string }
            delete s.transactionRequest
            s.executionType = 'message'
            s.typedData = [{
              primaryType: 'Permit',
              domain: { name: 'Bridged token', version: '1', chainId: s.action.toChainId, verifyingContract: FAKE_OTHER_TOKEN },
              types: { Permit: [{ name: 'owner', type: 'address' }, { name: 'spender', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'nonce', type: 'uint256' }, { name: 'deadline', type: 'uint256' }] },
              message: { owner: s.action.toAddress, spender: '0x1231DEB6f5749EF6cE6943a275A1D3E7486F4EaE', value: s.estimate.toAmount, nonce: '0', deadline: '9999999999' },
            }]
            return Response.json(s)
          }
          case 'destination-transaction': {
            const s = step(url.searchParams, this.solanaBlockhash)
            const dest = s.action.toChainId
            s.includedSteps = [
              { type: 'cross', tool: 'fakebridge', action: { ...s.action, toChainId: dest } },
              { type: 'swap', tool: 'fakeswap', action: { ...s.action, fromChainId: dest }, transactionRequest: { to: FAKE_OTHER_TOKEN, data: '0x01', value: '0x0', chainId: dest } },
            ] as never
            return Response.json(s)
          }
          default:
            return Response.json(step(url.searchParams, this.solanaBlockhash))
        }
      },
    })
    return this
  }

  get baseUrl() {
    return `http://127.0.0.1:${this.server!.port}/v1`
  }

  stop() {
    this.server?.stop(true)
  }
}

const LIFI_SOLANA = '1151111081099710'

/**
 * From Solana, LI.FI's `transactionRequest.data` is a base64 versioned transaction to sign:
 * here a v0 message paying 1,000,000 lamports (above a new account's rent-exempt minimum, so
 * it executes) to a fresh address, its fee payer `fromAddress`.
 */
function solanaTransaction(fromAddress: string, recentBlockhash: string) {
  const payer = new PublicKey(fromAddress)
  const message = new TransactionMessage({
    payerKey: payer, recentBlockhash,
    instructions: [SystemProgram.transfer({ fromPubkey: payer, toPubkey: Keypair.generate().publicKey, lamports: 1_000_000 })],
  }).compileToV0Message()
  return Buffer.from(new VersionedTransaction(message).serialize()).toString('base64')
}

/** A quote as LI.FI shapes it (abridged to what a same-chain swap carries). */
function step(q: URLSearchParams, solanaBlockhash: () => string) {
  const token = (address: string, symbol: string, decimals: number) => ({ chainId: Number(q.get('fromChain')), address, symbol, decimals, name: symbol, priceUSD: '1' })
  const fromToken = token(q.get('fromToken') ?? '', 'USDC', 6)
  const toToken = token(q.get('toToken') ?? '', 'EURe', 18)
  const estimate = {
    tool: 'fakeswap', fromAmount: q.get('fromAmount'), toAmount: '920000000000000000', toAmountMin: '915400000000000000',
    approvalAddress: '0x1231DEB6f5749EF6cE6943a275A1D3E7486F4EaE', executionDuration: 30,
    gasCosts: [{ type: 'SEND', price: '1000000000', estimate: '150000', limit: '200000', amount: '150000000000000', amountUSD: '0.00', token: token('0x0000000000000000000000000000000000000000', 'xDAI', 18) }],
  }
  const action = { fromChainId: Number(q.get('fromChain')), toChainId: Number(q.get('toChain')), fromToken, toToken, fromAmount: q.get('fromAmount'), fromAddress: q.get('fromAddress'), toAddress: q.get('toAddress'), slippage: Number(q.get('slippage')) }
  return {
    type: 'lifi', id: crypto.randomUUID(), tool: 'fakeswap', toolDetails: { key: 'fakeswap', name: 'Fake swap', logoURI: '' }, action, estimate, includedSteps: [] as unknown[],
    transactionRequest: q.get('fromChain') === LIFI_SOLANA ? { data: solanaTransaction(q.get('fromAddress')!, solanaBlockhash()) } as never : { to: '0x1231DEB6f5749EF6cE6943a275A1D3E7486F4EaE', data: '0xdeadbeef', value: '0x0', gasLimit: '0x30d40', gasPrice: '0x3b9aca00', chainId: Number(q.get('fromChain')), from: q.get('fromAddress') },
  }
}
