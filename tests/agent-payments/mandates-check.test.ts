/** The pure mandate check the executions call: judgeMandate and mandateAfterPayment. */
import { describe, expect, test } from 'bun:test'
import { judgeMandate, mandateAfterPayment, type MandatePaymentRequest, type MandateTerms } from '@/modules/agent-payments/mandates/mandate-check'

const NOW = Date.UTC(2026, 10, 25, 12) // Wednesday
const AGENT = 'agent-1'
const M1 = 'merchant-1'
const M2 = 'merchant-2'

const intent = (over: Partial<MandateTerms> = {}, constraints: Partial<MandateTerms['constraints']> = {}): MandateTerms => ({
  type: 'intent', status: 'active', agentId: AGENT, cart: null, expiresAt: NOW + 86_400_000,
  ...over,
  constraints: { maxAmount: '50', currency: 'USDC', ...constraints },
})
const cartMandate = (over: Partial<MandateTerms> = {}): MandateTerms => ({
  type: 'cart', status: 'active', agentId: AGENT, expiresAt: NOW + 86_400_000,
  constraints: { maxAmount: '30', currency: 'USDC' },
  cart: { items: [{ name: 'a', quantity: 2, unitPrice: '10.25' }, { name: 'b', quantity: 1, unitPrice: '4.5' }], total: '25', currency: 'USDC', merchantId: M1 },
  ...over,
})
const req = (over: Partial<MandatePaymentRequest> = {}): MandatePaymentRequest => ({
  agentId: AGENT, merchantId: M1, merchantCategory: 'travel', amount: '10', currency: 'USDC', now: NOW, spentUnderMandate: '0', occurrencesUsed: 0, ...over,
})

describe('judgeMandate', () => {
  test('a payment within an active intent mandate is ok', () => {
    expect(judgeMandate(intent(), req())).toEqual({ ok: true, reasons: [] })
  })

  test('state, agent, expiry', () => {
    for (const status of ['pending_authorization', 'revoked', 'expired', 'consumed', 'exhausted', 'rejected'] as const) {
      expect(judgeMandate(intent({ status }), req()).reasons).toEqual(['MANDATE_NOT_ACTIVE'])
    }
    expect(judgeMandate(intent(), req({ agentId: 'agent-2' })).reasons).toEqual(['MANDATE_AGENT_MISMATCH'])
    expect(judgeMandate(intent({ expiresAt: NOW }), req()).reasons).toEqual(['MANDATE_EXPIRED'])
    expect(judgeMandate(intent({ expiresAt: NOW + 1 }), req()).ok).toBe(true)
  })

  test('the window: notBefore included, notAfter excluded', () => {
    const at = (iso: string) => Date.parse(iso)
    const m = intent({}, { notBefore: '2026-11-25T12:00:00.000Z', notAfter: '2026-11-26T00:00:00.000Z' })
    expect(judgeMandate(m, req({ now: at('2026-11-25T11:59:59.999Z') })).reasons).toEqual(['MANDATE_NOT_YET_VALID'])
    expect(judgeMandate(m, req({ now: at('2026-11-25T12:00:00.000Z') })).ok).toBe(true)
    expect(judgeMandate(m, req({ now: at('2026-11-25T23:59:59.999Z') })).ok).toBe(true)
    expect(judgeMandate(m, req({ now: at('2026-11-26T00:00:00.000Z') })).reasons).toEqual(['MANDATE_WINDOW_ENDED'])
  })

  test('amount up to maxAmount, exactly, in decimals; currency without case', () => {
    const m = intent({}, { maxAmount: '50.10' })
    expect(judgeMandate(m, req({ amount: '50.1' })).ok).toBe(true)
    expect(judgeMandate(m, req({ amount: '50.100000000000000001' })).reasons).toEqual(['MANDATE_AMOUNT_ABOVE_MAX'])
    expect(judgeMandate(m, req({ currency: 'usdc' })).ok).toBe(true)
    expect(judgeMandate(m, req({ currency: 'EURe' })).reasons).toEqual(['MANDATE_CURRENCY_MISMATCH'])
  })

  test('merchants and categories', () => {
    const m = intent({}, { merchantIds: [M1], categories: ['travel', 'saas'] })
    expect(judgeMandate(m, req()).ok).toBe(true)
    expect(judgeMandate(m, req({ merchantId: M2 })).reasons).toEqual(['MANDATE_MERCHANT_NOT_ALLOWED'])
    expect(judgeMandate(m, req({ merchantId: undefined, merchantCategory: undefined })).reasons).toEqual(['MANDATE_MERCHANT_NOT_ALLOWED', 'MANDATE_CATEGORY_NOT_ALLOWED'])
    expect(judgeMandate(m, req({ merchantCategory: 'food' })).reasons).toEqual(['MANDATE_CATEGORY_NOT_ALLOWED'])
    expect(judgeMandate(m, req({ merchantCategory: null })).reasons).toEqual(['MANDATE_CATEGORY_NOT_ALLOWED'])
    // without lists, any merchant (or none)
    expect(judgeMandate(intent(), req({ merchantId: undefined, merchantCategory: undefined })).ok).toBe(true)
  })

  test('budget: what is held plus this payment, up to the budget', () => {
    const m = intent({}, { budget: '100' })
    expect(judgeMandate(m, req({ spentUnderMandate: '90', amount: '10' })).ok).toBe(true)
    expect(judgeMandate(m, req({ spentUnderMandate: '90.000001', amount: '10' })).reasons).toEqual(['MANDATE_BUDGET_EXCEEDED'])
    expect(judgeMandate(m, req({ spentUnderMandate: '100', amount: '0.01' })).reasons).toEqual(['MANDATE_BUDGET_EXCEEDED'])
  })

  test('recurrence: occurrences left, one per period (UTC)', () => {
    const m = intent({}, { recurrence: { frequency: 'weekly', maxOccurrences: 3 } })
    expect(judgeMandate(m, req({ occurrencesUsed: 2 })).ok).toBe(true)
    expect(judgeMandate(m, req({ occurrencesUsed: 3 })).reasons).toEqual(['MANDATE_OCCURRENCES_USED'])
    // the week of 2026-11-25 (a Wednesday) starts on Monday 2026-11-23
    expect(judgeMandate(m, req({ occurrencesUsed: 1, lastPaymentAt: Date.UTC(2026, 10, 23) })).reasons).toEqual(['MANDATE_RECURRENCE_TOO_SOON'])
    expect(judgeMandate(m, req({ occurrencesUsed: 1, lastPaymentAt: Date.UTC(2026, 10, 22, 23, 59) })).ok).toBe(true)
    const daily = intent({}, { recurrence: { frequency: 'daily', maxOccurrences: 10 } })
    expect(judgeMandate(daily, req({ occurrencesUsed: 1, lastPaymentAt: Date.UTC(2026, 10, 25, 0, 0) })).reasons).toEqual(['MANDATE_RECURRENCE_TOO_SOON'])
    expect(judgeMandate(daily, req({ occurrencesUsed: 1, lastPaymentAt: Date.UTC(2026, 10, 24, 23, 59) })).ok).toBe(true)
    const monthly = intent({}, { recurrence: { frequency: 'monthly', maxOccurrences: 10 } })
    expect(judgeMandate(monthly, req({ occurrencesUsed: 1, lastPaymentAt: Date.UTC(2026, 10, 1) })).reasons).toEqual(['MANDATE_RECURRENCE_TOO_SOON'])
    expect(judgeMandate(monthly, req({ occurrencesUsed: 1, lastPaymentAt: Date.UTC(2026, 9, 31, 23) })).ok).toBe(true)
  })

  test('a cart mandate: exactly its total, to its merchant, once', () => {
    expect(judgeMandate(cartMandate(), req({ amount: '25.00' })).ok).toBe(true)
    expect(judgeMandate(cartMandate(), req({ amount: '24.99' })).reasons).toEqual(['MANDATE_CART_AMOUNT_MISMATCH'])
    expect(judgeMandate(cartMandate(), req({ amount: '25', merchantId: M2 })).reasons).toEqual(['MANDATE_CART_MERCHANT_MISMATCH'])
    expect(judgeMandate(cartMandate(), req({ amount: '25', merchantId: undefined })).reasons).toEqual(['MANDATE_CART_MERCHANT_MISMATCH'])
    expect(judgeMandate(cartMandate(), req({ amount: '25', occurrencesUsed: 1 })).reasons).toEqual(['MANDATE_CART_ALREADY_PAID'])
    expect(judgeMandate(cartMandate({ cart: null }), req({ amount: '25' })).reasons).toEqual(['MANDATE_CART_MISSING'])
  })

  test('every reason is listed, not the first only', () => {
    const m = intent({ status: 'revoked', expiresAt: NOW - 1 }, { budget: '5', merchantIds: [M2], categories: ['saas'] })
    const out = judgeMandate(m, req({ agentId: 'x', amount: '60', currency: 'EUR' }))
    expect(out.ok).toBe(false)
    expect(out.reasons).toEqual([
      'MANDATE_NOT_ACTIVE', 'MANDATE_EXPIRED', 'MANDATE_AGENT_MISMATCH', 'MANDATE_CURRENCY_MISMATCH', 'MANDATE_AMOUNT_ABOVE_MAX',
      'MANDATE_MERCHANT_NOT_ALLOWED', 'MANDATE_CATEGORY_NOT_ALLOWED', 'MANDATE_BUDGET_EXCEEDED',
    ])
  })

  test('a malformed amount throws (the route validates it first)', () => {
    expect(() => judgeMandate(intent(), req({ amount: '1e3' }))).toThrow()
  })
})

describe('mandateAfterPayment', () => {
  test('a cart mandate paid once is consumed', () => {
    expect(mandateAfterPayment(cartMandate(), { spentUnderMandate: '25', occurrencesUsed: 1 })).toBe('consumed')
  })
  test('budget used up: exhausted; below: still active', () => {
    const m = intent({}, { budget: '100' })
    expect(mandateAfterPayment(m, { spentUnderMandate: '99.99', occurrencesUsed: 5 })).toBe('active')
    expect(mandateAfterPayment(m, { spentUnderMandate: '100', occurrencesUsed: 5 })).toBe('exhausted')
  })
  test('occurrences used up: exhausted', () => {
    const m = intent({}, { recurrence: { frequency: 'monthly', maxOccurrences: 2 } })
    expect(mandateAfterPayment(m, { spentUnderMandate: '10', occurrencesUsed: 1 })).toBe('active')
    expect(mandateAfterPayment(m, { spentUnderMandate: '20', occurrencesUsed: 2 })).toBe('exhausted')
  })
  test('without budget or recurrence an intent mandate stays active', () => {
    expect(mandateAfterPayment(intent(), { spentUnderMandate: '1000000', occurrencesUsed: 1000 })).toBe('active')
  })
  test('only an active mandate moves', () => {
    expect(mandateAfterPayment(cartMandate({ status: 'revoked' }), { spentUnderMandate: '25', occurrencesUsed: 1 })).toBe('revoked')
    expect(mandateAfterPayment(intent({ status: 'expired' }, { budget: '1' }), { spentUnderMandate: '5', occurrencesUsed: 1 })).toBe('expired')
  })
})
