/**
 * The payee rule (docs/agent-payments.md, "Payees"): a payment is judged by the address it pays
 * as well as by the merchant it names, so leaving `merchantId` out cannot reach a merchant the
 * policy blocks or the tenant disabled. The merchants of the tenant registered at the payee's
 * address on the payment's network (EVM addresses compared without case) are looked at: one
 * disabled refuses it, one the policy blocks refuses it, none at all (an unregistered payee)
 * refuses it unless the policy allows unregistered payees. Pure: judging.ts reads the merchants.
 */

export interface PayeeMerchant { id: string; status: string }
/** The payee's address and the merchants of the tenant registered at it (none: unregistered). */
export interface Payee { address: string; merchants: PayeeMerchant[] }

/** What the rule reads of a policy (a `PolicyInput` or a `PolicyRow` fits). */
export interface MerchantRules {
  allowedMerchantIds?: string[] | null
  blockedMerchantIds?: string[] | null
  allowedCategories?: string[] | null
  allowUnregisteredPayees?: boolean | null
}

/** Whether the policy has a merchant rule: allowed or blocked merchants, or allowed categories. */
export const hasMerchantRule = (p: MerchantRules) => !!(p.allowedMerchantIds?.length || p.blockedMerchantIds?.length || p.allowedCategories?.length)

/** `allowUnregisteredPayees` as set, else (null) allowed only when the policy has no merchant rule. */
export const unregisteredAllowed = (p: MerchantRules) => p.allowUnregisteredPayees ?? !hasMerchantRule(p)

export interface PayeeFindings { disabled: boolean; blocked: boolean; unregistered: boolean }

/** What is wrong with paying this payee under the policy (all false: nothing). */
export function payeeFindings(p: MerchantRules, payee: Payee): PayeeFindings {
  return {
    disabled: payee.merchants.some((m) => m.status !== 'active'),
    blocked: payee.merchants.some((m) => p.blockedMerchantIds?.includes(m.id) ?? false),
    unregistered: payee.merchants.length === 0 && !unregisteredAllowed(p),
  }
}

/** The findings as the x402 rail's refusal reasons of a requirement's `payTo`. */
export function payeeRefusals(p: MerchantRules, payee: Payee): string[] {
  const f = payeeFindings(p, payee)
  const out: string[] = []
  if (f.disabled) out.push(`payTo ${payee.address} belongs to a disabled merchant`)
  if (f.blocked) out.push(`payTo ${payee.address} belongs to a merchant the policy blocks`)
  if (f.unregistered) out.push(`payTo ${payee.address} is no merchant of the tenant and the policy does not allow unregistered payees`)
  return out
}

/** The payee at `address` among the merchants of a network (as read for the x402 rail's check; EVM addresses compared without case). */
export function payeeAmong(merchants: Array<PayeeMerchant & { address: string }>, address: string): Payee {
  const a = address.toLowerCase()
  return { address, merchants: merchants.filter((m) => m.address.toLowerCase() === a).map((m) => ({ id: m.id, status: m.status })) }
}
