/**
 * The devnet merchant's x402 version 1 resources (scripts/devnet/x402.ts serves them). The
 * x402 Foundation's 2.x packages pay and facilitate v1 (`@x402/evm`'s `ExactEvmSchemeV1`, which
 * the facilitator registers for every v1 network name) but serve only v2 (`x402HTTPResourceServer`
 * reads `PAYMENT-SIGNATURE` alone), so this is a small handler in the shape of the first
 * packages' middleware (x402-express 0.x): a `402` whose JSON body carries `{ x402Version: 1,
 * error, accepts }` (network by name, `maxAmountRequired`, `resource`); the payment in the
 * `X-PAYMENT` header, verified and settled through the same facilitator over its HTTP protocol
 * (`HTTPFacilitatorClient`); the resource served with the settlement in `X-PAYMENT-RESPONSE`.
 */
import { encodePaymentResponseHeader, decodePaymentSignatureHeader } from '@x402/core/http'
import { HTTPFacilitatorClient } from '@x402/core/server'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { EVM_NETWORK_CHAIN_ID_MAP } from '@x402/evm/v1'
import type { Context } from 'hono'
import type { Address } from 'viem'

/** The v1 name of a chain (`sepolia` for 11155111), from the library's table. */
export function v1Network(chainId: number): string {
  const name = Object.entries(EVM_NETWORK_CHAIN_ID_MAP).find(([, id]) => id === chainId)?.[0]
  if (!name) throw new Error(`x402 version 1 has no name for chain ${chainId}`)
  return name
}

export interface V1Offer { price: bigint; network: string; payTo: Address }

export function v1Resources(opts: { facilitatorUrl: string; usdc: Address; maxTimeoutSeconds: number }) {
  const facilitator = new HTTPFacilitatorClient({ url: opts.facilitatorUrl })
  /** a v1 payment requirement, as the first packages' `paymentMiddleware` wrote it */
  const requirement = (resource: string, offer: V1Offer) => ({
    scheme: 'exact', network: offer.network, maxAmountRequired: offer.price.toString(), resource,
    description: 'devnet x402 resource (version 1)', mimeType: 'application/json', payTo: offer.payTo,
    maxTimeoutSeconds: opts.maxTimeoutSeconds, asset: opts.usdc, outputSchema: null, extra: { name: 'USDC', version: '2' },
  })
  /** the 402 body of version 1 (its only place: v1 has no PAYMENT-REQUIRED header) */
  const required = (resource: string, offer: V1Offer, error: string, payer?: string) =>
    ({ x402Version: 1 as const, error, accepts: [requirement(resource, offer)], ...(payer ? { payer } : {}) })

  /** Serves `body` for a payment of `offer` in version 1. */
  const serve = (offer: V1Offer, body: unknown) => async (c: Context) => {
    const resource = c.req.url
    const header = c.req.header('x-payment')
    if (!header) return c.json(required(resource, offer, 'X-PAYMENT header is required'), 402)
    let payload: PaymentPayload
    try {
      payload = decodePaymentSignatureHeader(header)
    } catch {
      return c.json(required(resource, offer, 'invalid_payload'), 402)
    }
    const wanted = requirement(resource, offer)
    const p = payload as unknown as { x402Version: number; scheme?: string; network?: string }
    if (p.x402Version !== 1 || p.scheme !== wanted.scheme || p.network !== wanted.network) {
      return c.json(required(resource, offer, 'Unable to find matching payment requirements'), 402)
    }
    const requirements = wanted as unknown as PaymentRequirements
    const verified = await facilitator.verify(payload, requirements).catch((err: Error) => ({ isValid: false, invalidReason: err.message, payer: undefined }))
    if (!verified.isValid) return c.json(required(resource, offer, verified.invalidReason ?? 'invalid_payment', verified.payer), 402)
    const settled = await facilitator.settle(payload, requirements).catch((err: Error) => ({ success: false, errorReason: err.message, transaction: '', network: wanted.network, payer: undefined }))
    if (!settled.success) return c.json(required(resource, offer, settled.errorReason ?? 'settle_failed', settled.payer), 402)
    const response = { success: true, transaction: settled.transaction, network: settled.network, payer: settled.payer }
    return c.json(body, 200, { 'X-PAYMENT-RESPONSE': encodePaymentResponseHeader(response as never) })
  }
  return { serve, required }
}
