/**
 * The devnet's x402 merchant: a paid resource served with the x402 Foundation's packages
 * (`@x402/hono`'s payment middleware over `x402ResourceServer`, `@x402/evm`'s exact scheme) and
 * its facilitator (`x402Facilitator` with `@x402/evm`'s exact EVM scheme, on the same server under
 * `/facilitator`), which verifies and settles on the devnet chain with the test USDC's EIP-3009
 * `transferWithAuthorization`: the token's balances move. `npm run devnet` starts it; the x402
 * tests start their own. Nothing of Slipway is inside.
 *
 *   GET /weather        0.01 USDC, paid to the merchant (x402 v2: PAYMENT-REQUIRED, PAYMENT-SIGNATURE, PAYMENT-RESPONSE)
 *   GET /weather-v1     0.01 USDC in x402 version 1 only (the 402's JSON body, X-PAYMENT, X-PAYMENT-RESPONSE; x402-v1.ts)
 *   GET /premium-v1     50 USDC, version 1
 *   GET /elsewhere-v1   0.01 USDC, version 1, on base-sepolia
 *   GET /weather-both   0.01 USDC offered in both versions: v2 in PAYMENT-REQUIRED, v1 in the body; paid by either header
 *   GET /premium        50 USDC
 *   GET /elsewhere      0.01 USDC, but on Base Sepolia (eip155:84532)
 *   GET /other-payee    0.01 USDC, paid to another address than the merchant's
 *   GET /always-402     asks 0.01 USDC and answers 402 again to the payment, keeping it (`captured`)
 *   GET /redirect-away  302 to another host
 *   GET /slow           answers after 8 s
 *   GET /free           200, no payment asked
 */
import { x402Facilitator } from '@x402/core/facilitator'
import { encodePaymentRequiredHeader } from '@x402/core/http'
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { v1Network, v1Resources } from './x402-v1'
import { paymentMiddleware } from '@x402/hono'
import { Hono } from 'hono'
import { createWalletClient, defineChain, http, publicActions, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

/** public, devnet-only keys: the facilitator pays the settling transactions' gas; the merchant is paid */
export const X402_KEYS = {
  facilitator: '0x5dc34a968022359db1be5834f73a3d15c6bde3928a3bc878372323cd464cd56f',
  merchant: '0xa1e755d7bc3adfa84244c55facac27ed4ca61c5ffd14338426c1b3d47817f829',
} as const satisfies Record<string, Hex>
export const X402_MERCHANT: Address = privateKeyToAccount(X402_KEYS.merchant).address
/** the price of /weather, in the test USDC's units (6 decimals): 0.01 USDC */
export const WEATHER_PRICE = 10_000n
/** what the paid resources answer */
export const FORECAST = { city: 'Lisbon', forecast: 'sunny', temperatureC: 21 }

export interface X402Merchant {
  url: string
  payTo: Address
  facilitator: Address
  /** every request that carried a payment: its path and the header (v2's PAYMENT-SIGNATURE or v1's X-PAYMENT) */
  paid: { path: string; header: 'PAYMENT-SIGNATURE' | 'X-PAYMENT' }[]
  /** the payment headers /always-402 kept */
  captured: { payload: PaymentPayload; requirements: PaymentRequirements }[]
  /** how many payments the facilitator settled */
  settled: number
  /** settles a kept payment through the facilitator (a merchant that settles late) */
  settleCaptured(i: number): Promise<{ success: boolean; transaction: string }>
  stop(): Promise<void>
}

export async function startX402Merchant(opts: { rpcUrl: string; chainId: number; usdc: Address; port?: number; host?: string; maxTimeoutSeconds?: number }): Promise<X402Merchant> {
  const network = `eip155:${opts.chainId}` as const
  const chain = defineChain({ id: opts.chainId, name: 'devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [opts.rpcUrl] } } })
  const account = privateKeyToAccount(X402_KEYS.facilitator)
  const client = createWalletClient({ account, chain, transport: http(opts.rpcUrl) }).extend(publicActions)
  const signer = toFacilitatorEvmSigner({
    address: account.address,
    getCode: (a) => client.getCode(a),
    readContract: (a) => client.readContract({ ...a, args: a.args ?? [] } as never),
    verifyTypedData: (a) => client.verifyTypedData(a as never),
    writeContract: (a) => client.writeContract({ ...a, args: a.args ?? [] } as never),
    sendTransaction: (a) => client.sendTransaction(a as never),
    waitForTransactionReceipt: (a) => client.waitForTransactionReceipt({ ...a, pollingInterval: 100 }),
  })
  const facilitator = new x402Facilitator()
  // Base Sepolia too, so /elsewhere can ask for it (nothing is ever settled there: no client pays it here)
  registerExactEvmScheme(facilitator, { signer, networks: [network, 'eip155:84532'] })
  const maxTimeoutSeconds = opts.maxTimeoutSeconds ?? 60
  const usdc = (amount: bigint) => ({ amount: amount.toString(), asset: opts.usdc, extra: { name: 'USDC', version: '2' } })
  const captured: X402Merchant['captured'] = []
  const paid: X402Merchant['paid'] = []
  let settled = 0

  let app: Hono | undefined
  const server = Bun.serve({ port: opts.port ?? 0, hostname: opts.host ?? '127.0.0.1', fetch: (req) => app ? app.fetch(req) : new Response('starting', { status: 503 }) })
  const origin = `http://${server.hostname}:${server.port}`
  const other = privateKeyToAccount('0x1111111111111111111111111111111111111111111111111111111111111111').address

  app = new Hono()
  app.use(async (c, next) => {
    const header = c.req.header('payment-signature') ? 'PAYMENT-SIGNATURE' : c.req.header('x-payment') ? 'X-PAYMENT' : null
    if (header) paid.push({ path: new URL(c.req.url).pathname, header })
    await next()
  })
  // the facilitator's HTTP protocol (what HTTPFacilitatorClient speaks)
  app.get('/facilitator/supported', (c) => c.json(facilitator.getSupported()))
  app.post('/facilitator/verify', async (c) => {
    const { paymentPayload, paymentRequirements } = await c.req.json()
    return c.json(await facilitator.verify(paymentPayload, paymentRequirements))
  })
  // one settlement at a time: they are sent from one account, whose nonces concurrent sends would collide on
  let queue: Promise<unknown> = Promise.resolve()
  const settleOne = (payload: PaymentPayload, requirements: PaymentRequirements) => {
    const run = queue.then(() => facilitator.settle(payload, requirements))
    queue = run.catch(() => {})
    return run
  }
  app.post('/facilitator/settle', async (c) => {
    const { paymentPayload, paymentRequirements } = await c.req.json()
    const out = await settleOne(paymentPayload, paymentRequirements)
    if (out.success) settled++
    return c.json(out)
  })
  const option = (price: bigint, extra: { network?: `${string}:${string}`; payTo?: Address } = {}) => ({
    accepts: { scheme: 'exact', price: usdc(price), network: extra.network ?? network, payTo: extra.payTo ?? X402_MERCHANT, maxTimeoutSeconds },
    description: 'devnet x402 resource', mimeType: 'application/json',
  })
  const forecast = (c: { json: (v: unknown) => Response }) => c.json(FORECAST)
  // version 1: the 402's body, X-PAYMENT, X-PAYMENT-RESPONSE, through the same facilitator
  const v1 = v1Resources({ facilitatorUrl: `${origin}/facilitator`, usdc: opts.usdc, maxTimeoutSeconds })
  const v1Offer = (price: bigint, network = v1Network(opts.chainId)) => ({ price, network, payTo: X402_MERCHANT })
  app.get('/weather-v1', v1.serve(v1Offer(WEATHER_PRICE), FORECAST))
  app.get('/premium-v1', v1.serve(v1Offer(50_000_000n), FORECAST))
  app.get('/elsewhere-v1', v1.serve(v1Offer(WEATHER_PRICE, 'base-sepolia'), FORECAST))
  // both versions: a v1 payment is taken by the v1 handler, anything else by the v2 middleware, whose 402 carries the v1 offer in its body
  app.use('/weather-both', async (c, next) => c.req.header('x-payment') ? v1.serve(v1Offer(WEATHER_PRICE), FORECAST)(c) : next())
  const both = {
    ...option(WEATHER_PRICE),
    unpaidResponseBody: (ctx: { adapter: { getUrl(): string } }) => ({ contentType: 'application/json', body: v1.required(ctx.adapter.getUrl(), v1Offer(WEATHER_PRICE), 'X-PAYMENT header is required') }),
  }
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: `${origin}/facilitator` }))
    .register(network, new ExactEvmScheme())
    .register('eip155:84532', new ExactEvmScheme())
  app.use(paymentMiddleware({
    'GET /weather': option(WEATHER_PRICE),
    'GET /premium': option(50_000_000n),
    'GET /elsewhere': option(WEATHER_PRICE, { network: 'eip155:84532' }),
    'GET /other-payee': option(WEATHER_PRICE, { payTo: other }),
    'GET /weather-both': both,
  }, resourceServer))
  app.get('/weather', forecast)
  app.get('/weather-both', forecast)
  app.get('/premium', forecast)
  app.get('/elsewhere', forecast)
  app.get('/other-payee', forecast)
  // a resource that takes the payment and answers 402 again (it keeps what it was sent)
  app.get('/always-402', (c) => {
    const requirements: PaymentRequirements = { scheme: 'exact', network, amount: WEATHER_PRICE.toString(), asset: opts.usdc, payTo: X402_MERCHANT, maxTimeoutSeconds, extra: { name: 'USDC', version: '2' } }
    const sent = c.req.header('payment-signature')
    if (sent) captured.push({ payload: JSON.parse(Buffer.from(sent, 'base64').toString()), requirements })
    const body = { x402Version: 2, error: 'Payment required', resource: { url: c.req.url, description: 'never served', mimeType: 'application/json' }, accepts: [requirements] }
    return c.json(body, 402, { 'PAYMENT-REQUIRED': encodePaymentRequiredHeader(body as never) })
  })
  app.get('/redirect-away', (c) => c.redirect('https://elsewhere.example.org/weather', 302))
  app.get('/slow', async (c) => {
    await Bun.sleep(8_000)
    return c.json({ late: true })
  })
  app.get('/free', (c) => c.json({ free: true }))

  return {
    url: origin,
    payTo: X402_MERCHANT,
    facilitator: account.address,
    captured,
    paid,
    get settled() { return settled },
    async settleCaptured(i) {
      const { payload, requirements } = captured[i]!
      const out = await settleOne(payload, requirements)
      return { success: out.success, transaction: out.transaction }
    },
    stop: async () => { server.stop(true) },
  }
}
