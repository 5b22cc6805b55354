/**
 * The two x402 versions the rail speaks, mapped in this one place. Version 2 (`PAYMENT-REQUIRED`
 * header, `PAYMENT-SIGNATURE`, `PAYMENT-RESPONSE`) names a network by CAIP-2 (`eip155:84532`) and
 * a price by `amount`; version 1 (the requirements in the 402's JSON body, `X-PAYMENT`,
 * `X-PAYMENT-RESPONSE`) by a name (`base-sepolia`) and `maxAmountRequired`. The library speaks
 * both (`@x402/evm`'s `registerExactEvmScheme` registers the v1 exact scheme for every v1 EVM
 * name, `@x402/fetch` sends the header of the version the resource spoke, and reads the
 * `PAYMENT-REQUIRED` header first, so a resource offering both is paid in v2); the checks
 * (x402-checks.ts) and the execution's record see one shape, v2's, built here.
 */
import { x402HTTPClient, type x402Client } from '@x402/core/client'
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types'
import { EVM_NETWORK_CHAIN_ID_MAP } from '@x402/evm/v1'

export type X402Version = 1 | 2

const V1_CHAIN_IDS: Readonly<Record<string, number>> = EVM_NETWORK_CHAIN_ID_MAP

/**
 * A network as CAIP-2: a v1 name through the library's table of v1 EVM names; anything else
 * unchanged (a v2 network, or a v1 name the table does not know, which then matches no
 * execution's network and is refused).
 */
export function caipNetwork(version: number, network: unknown): string {
  const name = String(network)
  if (version === 1 && Object.hasOwn(V1_CHAIN_IDS, name)) return `eip155:${V1_CHAIN_IDS[name]}`
  return name
}

/** The v1 name of an EVM chain (`sepolia` for 11155111), or null when version 1 has none. */
export function v1NetworkName(chainId: number): string | null {
  return Object.keys(V1_CHAIN_IDS).find((name) => V1_CHAIN_IDS[name] === chainId) ?? null
}

/**
 * A requirement of either version in v2's shape, for the checks and the record: v1's network
 * name as CAIP-2 and its `maxAmountRequired` as `amount`. The library is handed the original.
 */
export function asV2Requirement(version: number, r: PaymentRequirements): PaymentRequirements {
  if (version !== 1) return r
  const v1 = r as unknown as Record<string, unknown>
  return {
    scheme: v1.scheme as string, network: caipNetwork(1, v1.network) as PaymentRequirements['network'],
    asset: v1.asset as string, amount: v1.maxAmountRequired as string, payTo: v1.payTo as string,
    maxTimeoutSeconds: v1.maxTimeoutSeconds as number, extra: (v1.extra ?? {}) as Record<string, unknown>,
  }
}

/**
 * The library's HTTP client, telling `heard` which version a 402 was read in, and refusing one
 * whose `accepts` is no list of requirements (the library takes a v1 body as it comes): such an
 * answer is unreadable, not a crash later.
 */
export class X402HttpClient extends x402HTTPClient {
  constructor(client: x402Client, private readonly heard: (version: X402Version) => void) {
    super(client)
  }

  override getPaymentRequiredResponse(getHeader: (name: string) => string | null | undefined, body?: unknown): PaymentRequired {
    const required = super.getPaymentRequiredResponse(getHeader, body)
    const version = required.x402Version
    if (version !== 1 && version !== 2) throw new Error(`x402 version ${String(version)} is not spoken`)
    const accepts: unknown = required.accepts
    if (!Array.isArray(accepts) || accepts.length === 0 || !accepts.every((a) => typeof a === 'object' && a !== null)) {
      throw new Error(`the x402 v${version} answer has no list of payment requirements`)
    }
    this.heard(version)
    return required
  }
}
