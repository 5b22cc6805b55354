/** The policy engine (src/modules/agent-payments/policies/policy.ts): a pure function, judged case by case. */
import { describe, expect, test } from 'bun:test'
import { fromUnits, judge, toUnits, windowOf, withinActiveHours, type JudgeInput, type PolicyInput } from '@/modules/agent-payments/policies/policy'

const MERCHANT = { id: 'm-1', status: 'active', category: 'travel', network: 'base' }
// Wednesday 2026-11-25 10:00 UTC (11:00 in Berlin)
const WED_10_UTC = Date.UTC(2026, 10, 25, 10, 0)
const policy = (p: Partial<PolicyInput> = {}): PolicyInput => ({ currency: 'USDC', limits: [], approvalMode: 'auto', ...p })
const input = (over: Partial<JudgeInput> = {}): JudgeInput => ({
  agent: { id: 'a-1', status: 'active' }, policy: policy(), merchant: MERCHANT, amount: '10', currency: 'USDC', rail: 'onchain', now: WED_10_UTC, spent: {}, ...over,
})
const codes = (i: Partial<JudgeInput>) => judge(input(i)).reasons.map((r) => r.code)

describe('decimals', () => {
  test('decimal strings go through bigints exactly', () => {
    expect(fromUnits(toUnits('12.50'))).toBe('12.5')
    expect(fromUnits(toUnits('0.1') + toUnits('0.2'))).toBe('0.3')
    expect(fromUnits(toUnits('123456789012345678901234567.123456789012345678'))).toBe('123456789012345678901234567.123456789012345678')
    expect(() => toUnits('1e5')).toThrow()
    expect(() => toUnits('-1')).toThrow()
  })
})

describe('judge', () => {
  test('a payment within an open policy is allowed with no reasons', () => {
    expect(judge(input())).toEqual({ decision: 'allow', reasons: [] })
  })

  test('a paused or archived agent is denied', () => {
    expect(judge(input({ agent: { id: 'a', status: 'paused' } }))).toEqual({ decision: 'deny', reasons: [{ code: 'AGENT_NOT_ACTIVE', message: 'The agent is paused' }] })
    expect(codes({ agent: { id: 'a', status: 'archived' } })).toEqual(['AGENT_NOT_ACTIVE'])
  })

  test('a disabled merchant is denied', () => {
    expect(codes({ merchant: { ...MERCHANT, status: 'disabled' } })).toEqual(['MERCHANT_DISABLED'])
  })

  test('another currency than the policy\'s is denied; case does not matter', () => {
    expect(codes({ currency: 'EURe' })).toEqual(['CURRENCY_NOT_ALLOWED'])
    expect(codes({ currency: 'usdc' })).toEqual([])
  })

  test('rails and networks', () => {
    expect(codes({ policy: policy({ allowedRails: ['x402'] }) })).toEqual(['RAIL_NOT_ALLOWED'])
    expect(codes({ policy: policy({ allowedRails: ['onchain'] }) })).toEqual([])
    // the merchant's payTo network stands in when the payment names none
    expect(codes({ policy: policy({ allowedNetworks: ['polygon'] }) })).toEqual(['NETWORK_NOT_ALLOWED'])
    expect(codes({ policy: policy({ allowedNetworks: ['base'] }) })).toEqual([])
    expect(codes({ policy: policy({ allowedNetworks: ['base'] }), network: 'ethereum' })).toEqual(['NETWORK_NOT_ALLOWED'])
    expect(codes({ policy: policy({ allowedNetworks: ['base'] }), merchant: null })).toEqual(['NETWORK_UNKNOWN'])
  })

  test('blocked and allowed merchants', () => {
    expect(codes({ policy: policy({ blockedMerchantIds: ['m-1'] }) })).toEqual(['MERCHANT_BLOCKED'])
    expect(codes({ policy: policy({ allowedMerchantIds: ['m-2'] }) })).toEqual(['MERCHANT_NOT_ALLOWED'])
    expect(codes({ policy: policy({ allowedMerchantIds: ['m-1'] }) })).toEqual([])
    expect(codes({ policy: policy({ allowedMerchantIds: ['m-1'] }), merchant: null })).toEqual(['MERCHANT_NOT_ALLOWED'])
  })

  test('categories', () => {
    expect(codes({ policy: policy({ allowedCategories: ['saas'] }) })).toEqual(['CATEGORY_NOT_ALLOWED'])
    expect(codes({ policy: policy({ allowedCategories: ['saas', 'travel'] }) })).toEqual([])
    expect(codes({ policy: policy({ allowedCategories: ['travel'] }), merchant: { ...MERCHANT, category: null } })).toEqual(['CATEGORY_NOT_ALLOWED'])
  })

  test('active hours are read in the policy\'s time zone, start included, end excluded', () => {
    const hours = { timeZone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu', 'fri'] as const, start: '08:00', end: '11:00' }
    const p = policy({ activeHours: { ...hours, days: [...hours.days] } })
    // 10:00 UTC is 11:00 in Berlin: just outside
    expect(codes({ policy: p })).toEqual(['OUTSIDE_ACTIVE_HOURS'])
    expect(codes({ policy: p, now: WED_10_UTC - 60_000 })).toEqual([])
    // 07:00 UTC is 08:00 in Berlin: inside
    expect(codes({ policy: p, now: Date.UTC(2026, 10, 25, 7, 0) })).toEqual([])
    // Saturday
    expect(codes({ policy: p, now: Date.UTC(2026, 10, 28, 9, 0) })).toEqual(['OUTSIDE_ACTIVE_HOURS'])
    // New York is 05:00 then: outside 08:00-11:00
    expect(withinActiveHours({ ...hours, days: [...hours.days], timeZone: 'America/New_York' }, WED_10_UTC)).toBe(false)
    expect(withinActiveHours({ timeZone: 'UTC', days: ['wed'], start: '00:00', end: '24:00' }, WED_10_UTC)).toBe(true)
  })

  test('maxExecutionsPerDay counts executions already made today', () => {
    expect(codes({ policy: policy({ maxExecutionsPerDay: 3 }), executionsToday: 2 })).toEqual([])
    expect(codes({ policy: policy({ maxExecutionsPerDay: 3 }), executionsToday: 3 })).toEqual(['DAILY_EXECUTIONS_EXCEEDED'])
  })

  test('per-transaction limit: equal passes, above denies', () => {
    const p = policy({ limits: [{ interval: 'per_transaction', amount: '10.00' }] })
    expect(codes({ policy: p, amount: '10' })).toEqual([])
    const r = judge(input({ policy: p, amount: '10.01' }))
    expect(r.decision).toBe('deny')
    expect(r.reasons).toEqual([{ code: 'LIMIT_EXCEEDED', interval: 'per_transaction', message: '10.01 is over the per-transaction limit of 10.00' }])
  })

  test('window limits add what was spent in the window', () => {
    const p = policy({ limits: [{ interval: 'daily', amount: '100' }, { interval: 'weekly', amount: '300' }, { interval: 'monthly', amount: '1000' }, { interval: 'all_time', amount: '5000' }] })
    expect(codes({ policy: p, amount: '40', spent: { daily: '60', weekly: '100', monthly: '100', all_time: '100' } })).toEqual([])
    const over = judge(input({ policy: p, amount: '40.5', spent: { daily: '60', weekly: '260', monthly: '960', all_time: '4960' } }))
    expect(over.decision).toBe('deny')
    expect(over.reasons.map((r) => r.interval)).toEqual(['daily', 'weekly', 'monthly', 'all_time'])
    expect(over.reasons[0]!.message).toBe('60 spent plus 40.5 is over the daily limit of 100')
  })

  test('every failed check is listed, not only the first', () => {
    expect(codes({
      agent: { id: 'a', status: 'paused' }, currency: 'EUR', rail: 'x402',
      policy: policy({ allowedRails: ['onchain'], blockedMerchantIds: ['m-1'], limits: [{ interval: 'per_transaction', amount: '1' }] }),
    })).toEqual(['AGENT_NOT_ACTIVE', 'CURRENCY_NOT_ALLOWED', 'RAIL_NOT_ALLOWED', 'MERCHANT_BLOCKED', 'LIMIT_EXCEEDED'])
  })

  test('a zero amount is denied', () => {
    expect(codes({ amount: '0' })).toEqual(['AMOUNT_INVALID'])
  })

  test('approval modes: auto allows, always asks, threshold asks strictly above it', () => {
    expect(judge(input({ policy: policy({ approvalMode: 'always' }) }))).toEqual({ decision: 'require_approval', reasons: [{ code: 'APPROVAL_ALWAYS', message: 'The policy asks for an approval of every payment' }] })
    const th = policy({ approvalMode: 'threshold', approvalThreshold: '50' })
    expect(judge(input({ policy: th, amount: '50' })).decision).toBe('allow')
    expect(judge(input({ policy: th, amount: '50.01' }))).toEqual({ decision: 'require_approval', reasons: [{ code: 'APPROVAL_THRESHOLD', message: '50.01 is over the approval threshold of 50' }] })
  })

  test('a denial wins over an approval', () => {
    expect(judge(input({ policy: policy({ approvalMode: 'always', allowedRails: ['x402'] }) })).decision).toBe('deny')
  })
})

describe('limit windows', () => {
  test('UTC: the day, the week from Monday, the calendar month', () => {
    expect(windowOf('daily', WED_10_UTC, 'UTC')).toEqual({ start: Date.UTC(2026, 10, 25), end: Date.UTC(2026, 10, 26) })
    expect(windowOf('weekly', WED_10_UTC, 'UTC')).toEqual({ start: Date.UTC(2026, 10, 23), end: Date.UTC(2026, 10, 30) })
    expect(windowOf('monthly', WED_10_UTC, 'UTC')).toEqual({ start: Date.UTC(2026, 10, 1), end: Date.UTC(2026, 11, 1) })
    expect(windowOf('all_time', WED_10_UTC, 'UTC')).toEqual({ start: 0, end: null })
  })

  test('in a time zone the local midnight starts the day (Berlin is UTC+1 in November)', () => {
    expect(windowOf('daily', WED_10_UTC, 'Europe/Berlin')).toEqual({ start: Date.UTC(2026, 10, 24, 23), end: Date.UTC(2026, 10, 25, 23) })
    // 23:30 UTC on Wednesday is already Thursday in Berlin
    expect(windowOf('daily', Date.UTC(2026, 10, 25, 23, 30), 'Europe/Berlin').start).toBe(Date.UTC(2026, 10, 25, 23))
  })

  test('a day that changes the clock is 23 hours long', () => {
    // Berlin moves to summer time on 2026-03-29
    const w = windowOf('daily', Date.UTC(2026, 2, 29, 12), 'Europe/Berlin')
    expect(w).toEqual({ start: Date.UTC(2026, 2, 28, 23), end: Date.UTC(2026, 2, 29, 22) })
  })

  test('a month across the year end', () => {
    expect(windowOf('monthly', Date.UTC(2026, 11, 31, 12), 'UTC')).toEqual({ start: Date.UTC(2026, 11, 1), end: Date.UTC(2027, 0, 1) })
  })
})
