/**
 * Limits in USD: the exact decimal arithmetic (no float anywhere), the policy routes taking and
 * answering USD amounts (bad ones answer 400 and write nothing), and the limits held in the
 * recording write: twenty reservations fired at once against a daily USD limit covering three
 * give exactly three, each recording the rate it was counted at; settling and releasing move
 * the USD totals with the wei ones; the tenant's monthly USD budget and the USD maximum per
 * operation refuse with their codes; and a policy with a USD limit refuses, with its code, an
 * operation that comes without a price.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { releaseSponsorship, reserveSponsorship, settleSponsorship, type SponsorRequest } from '@/modules/gas-sponsorship'
import { formatUsd, parseUsd, weiToUsd } from '@/modules/gas-sponsorship/usd'
import { AppError } from '@/lib/errors'

describe('USD arithmetic', () => {
  test('decimal strings round-trip exactly; wei converts at the rate, rounded up; digits past the 18th decimal round up', () => {
    expect(formatUsd(parseUsd('100.50'))).toBe('100.5')
    expect(formatUsd(parseUsd('0.000000000000000001'))).toBe('0.000000000000000001')
    expect(formatUsd(parseUsd('3240'))).toBe('3240')
    expect(parseUsd('0.0000000000000000011')).toBe(2n)
    // 0.001 ETH at 3240 USD: 3.24 USD exactly
    expect(formatUsd(weiToUsd(10n ** 15n, parseUsd('3240')))).toBe('3.24')
    // 1 wei at 3240.5 USD: 3.2405e-15 USD, which needs 19 decimals: rounded up at the 18th
    expect(formatUsd(weiToUsd(1n, parseUsd('3240.5')))).toBe('0.000000000000003241')
    expect(formatUsd(weiToUsd(10n, parseUsd('3240.5')))).toBe('0.000000000000032405')
    // 1 wei at 0.3 USD: 3e-19 USD, rounded up to 1e-18
    expect(formatUsd(weiToUsd(1n, parseUsd('0.3')))).toBe('0.000000000000000001')
    expect(() => parseUsd('1e3')).toThrow()
    expect(() => parseUsd('-1')).toThrow()
  })
})

let t: TestApp
let f: Factory
let tenant: Tenant
let admin: SignedInUser

beforeAll(async () => {
  t = await makeApp()
  f = new Factory(t)
  tenant = await f.tenant()
  admin = await f.tenantAdmin(tenant)
})

const put = (body: unknown) => f.api.put(`/v1/admin/tenants/${tenant.id}/gas-policies/base`, body, { token: admin.accessToken })

describe('USD limits on the policy', () => {
  test('set and answered as exact decimal strings; bad amounts answer 400 and change nothing', async () => {
    const res = await put({ enabled: true, operations: ['send'], userDailyLimitUsd: '2.50', tenantMonthlyBudgetUsd: '1000', maxPerOperationUsd: '0.000001' })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ userDailyLimitUsd: '2.5', tenantMonthlyBudgetUsd: '1000', maxPerOperationUsd: '0.000001', userDailyLimitWei: null })
    for (const bad of ['1e3', '-1', '1.0000000000000000001', 'ten', '', '01', 2.5]) {
      const r = await put({ enabled: true, userDailyLimitUsd: bad })
      expect({ bad, status: r.status }).toEqual({ bad, status: 400 })
    }
    const list = await f.api.get(`/v1/admin/tenants/${tenant.id}/gas-policies`, { token: admin.accessToken })
    expect(list.body.data[0]).toMatchObject({ network: 'base', userDailyLimitUsd: '2.5' })
    const cleared = await put({ enabled: true, userDailyLimitUsd: null })
    expect(cleared.body).toMatchObject({ userDailyLimitUsd: null, tenantMonthlyBudgetUsd: '1000' })
  })
})

describe('USD limits held in the recording write', () => {
  const rate = { usd: '3240', asOf: 1_700_000_000_000 }
  // 0.0001 ETH of gas at most per operation: 0.324 USD
  const maxCost = 10n ** 14n
  const request = (userId: string, nonce: number, usdRate: SponsorRequest['usdRate'] = rate): SponsorRequest => ({
    tenantId: tenant.id, userId, network: 'base', sender: '0x' + '11'.repeat(20), kind: 'send', maxCost, nonce: BigInt(nonce), source: 'custodial',
    userOpHash: null, validUntil: Math.floor(Date.now() / 1000) + 600, usdRate,
  })
  const reserve = (r: SponsorRequest) => t.deps.database.write((tx) => reserveSponsorship(tx, r, t.clock.now()))

  test('twenty at once against a daily limit covering three: exactly three reserved, the rest GAS_USER_DAILY_LIMIT; the rate recorded beside each', async () => {
    await put({ enabled: true, operations: ['send'], userDailyLimitUsd: '1', maxPerOperationUsd: null, tenantMonthlyBudgetUsd: null })
    const u = await f.user(tenant)
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => reserve(request(u.id, i))))
    const ok = outcomes.filter((o) => o.status === 'fulfilled').map((o) => (o as PromiseFulfilledResult<Awaited<ReturnType<typeof reserve>>>).value)
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason as AppError)
    expect(ok).toHaveLength(3)
    expect(refused.map((e) => e.code)).toEqual(Array(17).fill('GAS_USER_DAILY_LIMIT'))
    for (const s of ok) expect(s).toMatchObject({ usdRate: '3240', usdRateAsOf: rate.asOf, maxCostUsd: '0.324', status: 'reserved' })
    const mine = await f.api.get('/v1/gas-sponsorship/usage', { token: u.accessToken })
    expect(mine.body.networks[0]).toMatchObject({ network: 'base', dayUsd: '0.972', dayWei: (maxCost * 3n).toString(), dayOperations: 3 })

    // one settled at a quarter of its maximum, one released: the USD totals follow the wei ones, at the recorded rate
    await t.deps.database.write((tx) => settleSponsorship(tx, tenant.id, ok[0]!.id, maxCost / 4n, t.clock.now()))
    await t.deps.database.write((tx) => releaseSponsorship(tx, tenant.id, ok[1]!.id, t.clock.now()))
    const after = await f.api.get('/v1/gas-sponsorship/usage', { token: u.accessToken })
    expect(after.body.networks[0]).toMatchObject({ dayUsd: formatUsd(parseUsd('0.081') + parseUsd('0.324')), dayOperations: 2 })
    const tenantUsage = await f.api.get(`/v1/admin/tenants/${tenant.id}/gas-usage`, { token: admin.accessToken })
    expect(tenantUsage.body.networks[0]).toMatchObject({ monthUsd: '0.405' })
    expect(weiToUsd(maxCost / 4n, parseUsd('3240'))).toBe(parseUsd('0.081'))
  })

  test('a USD limit and no price for the native coin: 503 GAS_PRICE_UNAVAILABLE, nothing reserved; without USD limits no price is needed', async () => {
    const u = await f.user(tenant)
    await put({ enabled: true, operations: ['send'], userDailyLimitUsd: '1' })
    const err = await reserve(request(u.id, 1, null)).catch((e: AppError) => e)
    expect(err).toBeInstanceOf(AppError)
    expect({ status: (err as AppError).status, code: (err as AppError).code }).toEqual({ status: 503, code: 'GAS_PRICE_UNAVAILABLE' })
    expect((await f.api.get('/v1/gas-sponsorship/usage', { token: u.accessToken })).body.networks).toEqual([])
    await put({ enabled: true, userDailyLimitUsd: null })
    const s = await reserve(request(u.id, 2, null))
    expect(s).toMatchObject({ usdRate: null, maxCostUsd: null })
    expect((await f.api.get('/v1/gas-sponsorship/usage', { token: u.accessToken })).body.networks[0]).toMatchObject({ dayUsd: '0', dayOperations: 1 })
  })

  test('a monthly USD budget of the tenant: reached by two users together, the next refused with GAS_TENANT_MONTHLY_BUDGET', async () => {
    const used = parseUsd((await f.api.get(`/v1/admin/tenants/${tenant.id}/gas-usage`, { token: admin.accessToken })).body.networks[0].monthUsd)
    // room for exactly two more operations of 0.324 USD
    await put({ enabled: true, operations: ['send'], userDailyLimitUsd: null, tenantMonthlyBudgetUsd: formatUsd(used + parseUsd('0.7')) })
    const [a, b] = [await f.user(tenant), await f.user(tenant)]
    await reserve(request(a.id, 1))
    await reserve(request(b.id, 1))
    const err = (await reserve(request(a.id, 2)).catch((e: AppError) => e)) as AppError
    expect({ status: err.status, code: err.code }).toEqual({ status: 429, code: 'GAS_TENANT_MONTHLY_BUDGET' })
    expect(err.message).toContain('USD used')
    await put({ enabled: true, tenantMonthlyBudgetUsd: null })
  })

  test('a USD maximum per operation: GAS_COST_ABOVE_LIMIT', async () => {
    const u = await f.user(tenant)
    await put({ enabled: true, operations: ['send'], maxPerOperationUsd: '0.3' })
    const err = (await reserve(request(u.id, 1)).catch((e: AppError) => e)) as AppError
    expect(err.code).toBe('GAS_COST_ABOVE_LIMIT')
    expect(err.message).toContain('0.324 USD')
    await put({ enabled: true, maxPerOperationUsd: null })
  })
})
