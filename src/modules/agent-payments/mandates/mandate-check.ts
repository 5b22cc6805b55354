/**
 * Whether a payment fits a mandate, and what a payment does to it: pure functions (no
 * database, no clock), called by the executions inside their judge-and-reserve transaction.
 * Amounts are decimal strings compared as fixed-point integers, never floats.
 */
import { toUnits, windowOf } from '../policies/policy'
import type { MandateCart, MandateConstraints, MandateStatus, MandateType } from '../record-types'

/** What the check reads of a mandate (a `MandateRow` fits). `expiresAt` in Unix ms. */
export interface MandateTerms {
  type: MandateType
  status: MandateStatus
  agentId: string
  constraints: MandateConstraints
  cart: MandateCart | null
  expiresAt: number
}

export interface MandatePaymentRequest {
  agentId: string
  merchantId?: string | null
  merchantCategory?: string | null
  /** decimal string */
  amount: string
  currency: string
  /** Unix ms */
  now: number
  /** decimal string: what earlier payments under the mandate hold (processing and succeeded), this one excluded */
  spentUnderMandate: string
  /** earlier payments under the mandate (processing and succeeded), this one excluded */
  occurrencesUsed: number
  /** Unix ms of the latest earlier payment under a recurring mandate: one payment per period (UTC) */
  lastPaymentAt?: number | null
}

export interface MandateJudgement { ok: boolean; reasons: string[] }

const sameCurrency = (a: string, b: string) => a.toUpperCase() === b.toUpperCase()

/** Every reason the payment does not fit (codes in docs/agent-payments.md, "Mandates"); `ok` when none. */
export function judgeMandate(mandate: MandateTerms, request: MandatePaymentRequest): MandateJudgement {
  const reasons: string[] = []
  const c = mandate.constraints
  const amount = toUnits(request.amount)
  if (mandate.status !== 'active') reasons.push('MANDATE_NOT_ACTIVE')
  if (request.now >= mandate.expiresAt) reasons.push('MANDATE_EXPIRED')
  if (mandate.agentId !== request.agentId) reasons.push('MANDATE_AGENT_MISMATCH')
  if (c.notBefore !== undefined && request.now < Date.parse(c.notBefore)) reasons.push('MANDATE_NOT_YET_VALID')
  if (c.notAfter !== undefined && request.now >= Date.parse(c.notAfter)) reasons.push('MANDATE_WINDOW_ENDED')
  if (!sameCurrency(c.currency, request.currency)) reasons.push('MANDATE_CURRENCY_MISMATCH')
  if (amount > toUnits(c.maxAmount)) reasons.push('MANDATE_AMOUNT_ABOVE_MAX')
  if (c.merchantIds?.length && (!request.merchantId || !c.merchantIds.includes(request.merchantId))) reasons.push('MANDATE_MERCHANT_NOT_ALLOWED')
  if (c.categories?.length && (!request.merchantCategory || !c.categories.includes(request.merchantCategory))) reasons.push('MANDATE_CATEGORY_NOT_ALLOWED')
  if (c.budget !== undefined && toUnits(request.spentUnderMandate) + amount > toUnits(c.budget)) reasons.push('MANDATE_BUDGET_EXCEEDED')
  if (c.recurrence) {
    if (request.occurrencesUsed >= c.recurrence.maxOccurrences) reasons.push('MANDATE_OCCURRENCES_USED')
    if (request.lastPaymentAt != null && request.lastPaymentAt >= windowOf(c.recurrence.frequency, request.now, 'UTC').start) reasons.push('MANDATE_RECURRENCE_TOO_SOON')
  }
  if (mandate.type === 'cart') {
    const cart = mandate.cart
    if (!cart) reasons.push('MANDATE_CART_MISSING')
    else {
      if (request.occurrencesUsed > 0) reasons.push('MANDATE_CART_ALREADY_PAID')
      if (amount !== toUnits(cart.total) || !sameCurrency(cart.currency, request.currency)) reasons.push('MANDATE_CART_AMOUNT_MISMATCH')
      if (request.merchantId !== cart.merchantId) reasons.push('MANDATE_CART_MERCHANT_MISMATCH')
    }
  }
  return { ok: reasons.length === 0, reasons }
}

export interface MandateUsage {
  /** decimal string: what payments under the mandate hold, this one included */
  spentUnderMandate: string
  /** payments under the mandate, this one included */
  occurrencesUsed: number
}

/**
 * The mandate's status once a payment under it is made (counted in `usage`): `consumed` for a
 * cart mandate, `exhausted` when its budget or its occurrences are used up, else unchanged.
 * Only an `active` mandate moves.
 */
export function mandateAfterPayment(mandate: Pick<MandateTerms, 'type' | 'status' | 'constraints'>, usage: MandateUsage): MandateStatus {
  if (mandate.status !== 'active') return mandate.status
  if (mandate.type === 'cart') return 'consumed'
  const c = mandate.constraints
  if (c.budget !== undefined && toUnits(usage.spentUnderMandate) >= toUnits(c.budget)) return 'exhausted'
  if (c.recurrence && usage.occurrencesUsed >= c.recurrence.maxOccurrences) return 'exhausted'
  return 'active'
}
