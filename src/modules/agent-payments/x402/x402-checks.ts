/**
 * What the x402 rail checks before anything is signed (pure, table-tested): each payment
 * requirement a resource's `402 Payment Required` offers against what the execution allows,
 * and, at the key, the typed data the x402 client asks to sign against the requirement chosen.
 * Docs: docs/agent-payments.md, "The x402 rail".
 */
import type { PaymentRequirements } from '@x402/core/types'

/** What the judged execution allows: its network as CAIP-2, its token, its merchant's payTo, its reserved amount. */
export interface Allowed {
  /** `eip155:<chain id>` of the execution's network */
  network: string
  chainId: number
  /** the registry's address of the execution's currency on that network */
  asset: string
  /** the merchant's payTo when the execution names a merchant, else null (a payTo the payee rule allows) */
  payTo: string | null
  /**
   * the payee rule (payees.ts) on a payTo: why the agent's policy, as it is now, refuses paying it
   * (a disabled or blocked merchant registered at it, or none and unregistered payees not allowed)
   */
  payeeRefusals: (payTo: string) => string[]
  /** the reserved amount, in the token's units */
  maxUnits: bigint
  /** the longest authorization the deployment signs (AGENT_PAYMENTS_X402_MAX_AUTHORIZATION_SECONDS) */
  maxSeconds: number
}

const same = (a: unknown, b: string) => typeof a === 'string' && a.toLowerCase() === b.toLowerCase()
const ADDRESS = /^0x[0-9a-fA-F]{40}$/

/** Why a requirement is refused (empty: allowed). */
export function refusalsOf(r: PaymentRequirements, allowed: Allowed): string[] {
  const reasons: string[] = []
  if (r.scheme !== 'exact') reasons.push(`scheme ${r.scheme} is not exact`)
  if (r.network !== allowed.network) reasons.push(`network ${r.network} is not the execution's ${allowed.network}`)
  if (!same(r.asset, allowed.asset)) reasons.push(`asset ${r.asset} is not the execution's currency (${allowed.asset})`)
  if (typeof r.payTo !== 'string' || !ADDRESS.test(r.payTo)) reasons.push('payTo is not an address')
  else {
    if (allowed.payTo !== null && !same(r.payTo, allowed.payTo)) reasons.push(`payTo ${r.payTo} is not the merchant's ${allowed.payTo}`)
    reasons.push(...allowed.payeeRefusals(r.payTo))
  }
  if (typeof r.amount !== 'string' || !/^\d{1,78}$/.test(r.amount) || BigInt(r.amount) === 0n) reasons.push('amount is not a positive integer')
  else if (BigInt(r.amount) > allowed.maxUnits) reasons.push(`amount ${r.amount} is above the reserved ${allowed.maxUnits}`)
  const method = r.extra?.assetTransferMethod
  if (method !== undefined && method !== 'eip3009') reasons.push(`asset transfer method ${String(method)} is not eip3009 (transferWithAuthorization)`)
  if (typeof r.extra?.name !== 'string' || typeof r.extra?.version !== 'string') reasons.push('extra.name and extra.version (the token\'s EIP-712 domain) are missing')
  if (!Number.isInteger(r.maxTimeoutSeconds) || r.maxTimeoutSeconds < 1 || r.maxTimeoutSeconds > allowed.maxSeconds) {
    reasons.push(`maxTimeoutSeconds ${r.maxTimeoutSeconds} is outside 1-${allowed.maxSeconds}`)
  }
  return reasons
}

/** A requirement as the execution records it. */
export const requirementOf = (r: PaymentRequirements) => ({ scheme: r.scheme, network: r.network, asset: r.asset, payTo: r.payTo, amount: String(r.amount), maxTimeoutSeconds: r.maxTimeoutSeconds })

/** The typed data the x402 client asks the key to sign. */
export interface TypedDataRequest {
  domain: Record<string, unknown>
  primaryType: string
  message: Record<string, unknown>
}

/**
 * Whether the key may sign: only an EIP-3009 `TransferWithAuthorization` of exactly the chosen
 * requirement (token, chain, payTo, amount) from the wallet, valid no longer than allowed. The
 * library builds it from the same requirement; this second look is where the key is opened.
 */
export function signingRefusal(req: TypedDataRequest, chosen: PaymentRequirements, allowed: Allowed, wallet: string, nowSeconds: number): string | null {
  if (req.primaryType !== 'TransferWithAuthorization') return `it asks to sign ${req.primaryType}, not TransferWithAuthorization`
  if (!same(req.domain.verifyingContract, chosen.asset) || !same(chosen.asset, allowed.asset)) return 'the typed data\'s token is not the requirement\'s'
  if (Number(req.domain.chainId) !== allowed.chainId) return 'the typed data\'s chain is not the execution\'s'
  const m = req.message
  if (!same(m.from, wallet)) return 'the authorization is not from the agent\'s wallet'
  if (!same(m.to, chosen.payTo)) return 'the authorization does not pay the requirement\'s payTo'
  if (typeof m.value !== 'bigint' || m.value !== BigInt(chosen.amount) || m.value > allowed.maxUnits) return 'the authorization\'s value is not the requirement\'s amount'
  if (typeof m.validBefore !== 'bigint' || m.validBefore > BigInt(nowSeconds + allowed.maxSeconds + 5)) return 'the authorization is valid longer than allowed'
  return null
}
