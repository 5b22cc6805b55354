/** Partner webhooks into Slipway: signatures, repeats and stale events, and rules 1, 2, 3, 4, 5 and 7 of Event types. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { and, eq } from 'drizzle-orm'
import { rampCustomers, rampPaymentMethods, rampTransactions } from '@/modules/ramp/schema'
import { signPartnerWebhook } from '@/sandbox/bank-ramp/signature'
import type { SignedInUser } from '@tests/helpers/factories'
import { events, onboard, postPartnerEvent, rampWorld, until, type RampTenant, type RampWorld } from './world'

let w: RampWorld
let tenant: RampTenant
let user: SignedInUser
let customerId: string
let rampMethodId: string
let version = 100

beforeAll(async () => {
  w = await rampWorld()
  tenant = await w.rampTenant()
  user = await w.f.user(tenant)
  await onboard(w, user)
  const wallet = await w.f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: user.accessToken })
  const iban = await w.f.api.post('/v1/ramp/bank/payin/initiate', { walletId: wallet.body.id, isTestnet: true }, { token: user.accessToken })
  expect(iban.status).toBe(200)
  const db = w.t.deps.database.db
  customerId = (await db.select().from(rampCustomers).where(and(eq(rampCustomers.tenantId, tenant.id), eq(rampCustomers.userId, user.id))).get())!.id
  rampMethodId = (await db.select().from(rampPaymentMethods).where(eq(rampPaymentMethods.tenantId, tenant.id)).get())!.rampPaymentMethodId
  await until(() => events(w.receiver, 'ramp.kyc.updated'), (e) => e.length >= 2)
})
afterAll(() => w.stop())

const send = (event: Record<string, unknown>, opts?: { signature?: string; at?: number; url?: string; key?: string }) =>
  postPartnerEvent(opts?.url ?? tenant.webhookUrl, opts?.key ?? tenant.webhookKey, { Occurred: new Date().toISOString(), ...event }, opts)

const deposit = (id: string, v: number, data: Record<string, unknown> = {}) => send({
  EventType: 'FiatDeposit', EventVersion: v,
  Data: { ID: id, PaymentMethodID: rampMethodId, Status: 'Pending', FiatAmount: '250.500', FiatCurrency: 'EUR', PaymentMethodType: 'BankSepa', Refunds: [], Created: '2026-11-23T09:00:00Z', ...data },
})

async function tenantEventsAbout(type: string, key: string, value: string, n: number) {
  return until(() => events(w.receiver, type).filter((e) => e.data[key] === value), (e) => e.length >= n)
}

describe('signature and addressing', () => {
  const event = { EventType: 'FiatDeposit', EventVersion: 1, Data: { ID: 'sig-test', PaymentMethodID: 'none' } }
  test('no signature, a wrong key, an old timestamp: 401, nothing applied', async () => {
    expect((await send(event, { signature: '' })).status).toBe(401)
    expect((await send(event, { key: 'not-the-key' })).status).toBe(401)
    // older than the server's clock by 301 s (the app's clock stands still in tests; Date.now() moves on)
    const old = await send(event, { at: w.t.clock.now() - 301_000 })
    expect(old.status).toBe(401)
    expect(old.body.details).toEqual({ reason: 'expired' })
    expect((await send(event, { signature: 't=abc,v1=00' })).body.details).toEqual({ reason: 'malformed' })
  })

  test('a signature over other bytes does not verify', async () => {
    const sig = signPartnerWebhook(tenant.webhookKey, JSON.stringify({ other: true }), Math.floor(Date.now() / 1000))
    expect((await send(event, { signature: sig })).status).toBe(401)
  })

  test('an unknown tenant, another tenant\'s key, an environment not connected: refused like a bad signature', async () => {
    const other = await w.rampTenant({ hook: false })
    const unknown = await send(event, { url: tenant.webhookUrl.replace(tenant.id, crypto.randomUUID()) })
    expect(unknown).toEqual({ status: 401, body: { statusCode: 401, error: 'UnauthorizedError', message: 'Invalid webhook signature', details: { reason: 'mismatch' } } })
    expect((await send(event, { url: tenant.webhookUrl.replace(tenant.id, 'not-a-uuid') })).status).toBe(401)
    // the other tenant's key does not sign for this tenant
    expect((await send(event, { key: other.webhookKey })).status).toBe(401)
    expect((await send(event, { url: tenant.webhookUrl.replace('/sandbox/', '/production/') })).status).toBe(401)
    expect((await send(event, { url: tenant.webhookUrl.replace('/sandbox/', '/staging/') })).status).toBe(400)
  })

  test('a signed body that is not a partner event: 400', async () => {
    const res = await send({ EventType: 'FiatDeposit', EventVersion: 0, Data: {} })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ statusCode: 400 })
    expect((await send({ EventType: 'FiatDeposit', EventVersion: 1, Data: [] })).status).toBe(400)
  })
})

describe('repeats and stale events', () => {
  test('a deposit event is applied once; its repeat and an older one change nothing and send nothing', async () => {
    const id = `dep-${version++}`
    expect((await deposit(id, 3, { Status: 'Settled' })).body.outcome).toBe('applied')
    const first = await tenantEventsAbout('ramp.deposit.updated', 'rampDepositId', id, 1)
    expect(first[0].data).toMatchObject({ status: 'completed', fiatAmount: '250.5', userId: user.id, depositDate: '2026-11-23T09:00:00.000Z' })
    expect((await deposit(id, 3, { Status: 'Settled' })).body.outcome).toBe('stale')
    expect((await deposit(id, 2, { Status: 'Pending' })).body.outcome).toBe('stale')
    await Bun.sleep(300)
    expect(events(w.receiver, 'ramp.deposit.updated').filter((e) => e.data.rampDepositId === id)).toHaveLength(1)
    const list = await w.f.api.get('/v1/ramp/bank/payin/deposits?isTestnet=true', { token: user.accessToken })
    // the list gives the event's decimal text (the partner's `250.500` without trailing zeros), not a number
    expect(list.body.deposits.find((d: { rampDepositId: string }) => d.rampDepositId === id)).toMatchObject({ status: 'completed', rampStatus: 'Settled', fiatAmount: '250.5' })
  })

  test('rule 1: an undocumented sub-status is sent as null and the event still applies; rule 2: refunds and a request for information', async () => {
    const id = `dep-${version++}`
    await deposit(id, 1, { SubStatus: 'SomethingNew' })
    await deposit(id, 2, {
      SubStatus: 'UnderReview', Status: 'Pending',
      Refunds: [{ RefundID: 'r1', RefundedAmount: '10.50', RequestedTime: '2026-11-23T09:30:00Z', Status: 'Pending' }],
      RequestForInformation: { Reason: 'SourceOfFunds', Fields: ['SourceOfFunds'], RequestedAt: '2026-11-23T09:31:00Z' },
    })
    const got = await tenantEventsAbout('ramp.deposit.updated', 'rampDepositId', id, 2)
    const byVersion = got.sort((a, b) => a.data.updatedAt.localeCompare(b.data.updatedAt) || (a.data.refunds.length - b.data.refunds.length))
    expect(byVersion.find((e) => e.data.refunds.length === 0).data).toMatchObject({ rampSubStatus: null, refunds: [], requestForInformation: null })
    expect(byVersion.find((e) => e.data.refunds.length === 1).data).toMatchObject({
      rampSubStatus: 'UnderReview',
      refunds: [{ amount: '10.5', status: 'Pending', requestedAt: '2026-11-23T09:30:00.000Z' }],
      requestForInformation: { reason: 'SourceOfFunds', fields: ['SourceOfFunds'], requestedAt: '2026-11-23T09:31:00.000Z' },
    })
  })
})

describe('transactions', () => {
  const tx = (id: string, v: number, data: Record<string, unknown>) => send({
    EventType: 'Transaction', EventVersion: v,
    Data: { ID: id, Network: 'EthereumTestSepolia', Created: '2026-11-23T09:00:00Z', Status: 'Pending', CustomerID: customerId, CryptoCurrency: 'USDC_TEST', ...data },
  })

  test('rule 5: a delivery that arrives before its conversion has no deposit, and its next event carries it', async () => {
    const dep = `dep-${version++}`
    await deposit(dep, 1, { Status: 'Settled' })
    const [{ data: depData }] = await tenantEventsAbout('ramp.deposit.updated', 'rampDepositId', dep, 1)
    const execution = crypto.randomUUID()
    const orch = { RuleID: 'rule-1', RuleExecutionID: execution }
    await tx(`out-${execution}`, 1, { Direction: 'Out', Amount: '10.000000', Orchestration: orch, DestinationAddress: '0x000000000000000000000000000000000000dEaD', SubStatus: 'Submitted' })
    await tx(`in-${execution}`, 1, { Direction: 'In', Status: 'Settled', Amount: '10.000000', Orchestration: orch, FiatPayment: { Amount: '9.30', FeeAmount: '0.10', Rate: '1.0800', FiatCurrency: 'EUR', FiatDepositID: dep }, Breakdown: [] })
    await tx(`out-${execution}`, 2, { Direction: 'Out', Status: 'Settled', Amount: '10.000000', Orchestration: orch, DestinationAddress: '0x000000000000000000000000000000000000dEaD', TransactionHash: `0x${'ab'.repeat(32)}` })
    const outs = await tenantEventsAbout('ramp.transaction.updated', 'rampTransactionId', `out-${execution}`, 2)
    const early = outs.find((e) => e.data.status === 'pending')!
    const late = outs.find((e) => e.data.status === 'completed')!
    expect(early.data).toMatchObject({ depositId: null, rampSubStatus: 'Submitted', cryptoAmount: '10', transactionType: 'payin_delivery' })
    expect(late.data).toMatchObject({ depositId: depData.depositId, rampDepositId: dep, transactionHash: `0x${'ab'.repeat(32)}` })
    const [conv] = await tenantEventsAbout('ramp.transaction.updated', 'rampTransactionId', `in-${execution}`, 1)
    expect(conv.data).toMatchObject({ depositId: depData.depositId, fiatAmount: '9.3', fiatFeeAmount: '0.1', fiatRate: '1.08', breakdown: [], refunds: [] })
    // each event is delivered with its own id, once
    expect(new Set(outs.map((e) => e.id)).size).toBe(2)
    // the transactions list gives the same decimal text as the events
    const list = await w.f.api.get('/v1/ramp/bank/payin/transactions?isTestnet=true&limit=100', { token: user.accessToken })
    const byId = (id: string) => list.body.transactions.find((x: { rampTransactionId: string }) => x.rampTransactionId === id)
    expect(byId(`in-${execution}`)).toMatchObject({ cryptoAmount: '10', fiatAmount: '9.3', exchangeRate: '1.08', fiatFeeAmount: '0.1', fiatRate: '1.08' })
    expect(byId(`out-${execution}`)).toMatchObject({ cryptoAmount: '10', depositId: depData.depositId })
  })

  test('rule 3: ruleId and ruleExecutionId are Slipway\'s ids, one per partner rule and execution; the partner\'s are never sent', async () => {
    const rule = `rule-${crypto.randomUUID()}`
    const [first, second] = [crypto.randomUUID(), crypto.randomUUID()]
    const n = version++
    await tx(`r3-in-${n}`, 1, { Direction: 'In', Status: 'Settled', Amount: '1', Orchestration: { RuleID: rule, RuleExecutionID: first } })
    await tx(`r3-out-${n}`, 1, { Direction: 'Out', Amount: '1', Orchestration: { RuleID: rule, RuleExecutionID: first } })
    await tx(`r3-out-${n}`, 2, { Direction: 'Out', Status: 'Settled', Amount: '1', Orchestration: { RuleID: rule, RuleExecutionID: first } })
    await tx(`r3-in2-${n}`, 1, { Direction: 'In', Status: 'Settled', Amount: '2', Orchestration: { RuleID: rule, RuleExecutionID: second } })
    const [conv] = await tenantEventsAbout('ramp.transaction.updated', 'rampTransactionId', `r3-in-${n}`, 1)
    const outs = await tenantEventsAbout('ramp.transaction.updated', 'rampTransactionId', `r3-out-${n}`, 2)
    const [other] = await tenantEventsAbout('ramp.transaction.updated', 'rampTransactionId', `r3-in2-${n}`, 1)
    const all = [conv, ...outs, other]
    for (const e of all) {
      expect(e.data.ruleId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(e.data.ruleExecutionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    }
    expect(JSON.stringify(all)).not.toContain(rule)
    expect(JSON.stringify(all)).not.toContain(first)
    expect(JSON.stringify(all)).not.toContain(second)
    // one rule, one id; one execution, one id (shared by its conversion and delivery, every event); another execution, another id
    expect(new Set(all.map((e) => e.data.ruleId)).size).toBe(1)
    expect(new Set([conv, ...outs].map((e) => e.data.ruleExecutionId)).size).toBe(1)
    expect(other.data.ruleExecutionId).not.toBe(conv.data.ruleExecutionId)
    // another tenant's transactions of the same partner ids get ids of their own
    const neighbour = await w.rampTenant({ hook: false })
    const them = await w.f.user(neighbour)
    await onboard(w, them)
    const theirCustomer = (await w.t.deps.database.db.select().from(rampCustomers).where(and(eq(rampCustomers.tenantId, neighbour.id), eq(rampCustomers.userId, them.id))).get())!.id
    expect((await send({ EventType: 'Transaction', EventVersion: 1, Data: { ID: `r3-n-${n}`, CustomerID: theirCustomer, Direction: 'In', Status: 'Settled', Amount: '1', Orchestration: { RuleID: rule, RuleExecutionID: first } } }, { url: neighbour.webhookUrl, key: neighbour.webhookKey })).status).toBe(200)
    const theirs = await w.t.deps.database.db.select().from(rampTransactions).where(and(eq(rampTransactions.tenantId, neighbour.id), eq(rampTransactions.rampTransactionId, `r3-n-${n}`))).get()
    expect(theirs!.ruleId).not.toBe(conv.data.ruleId)
    expect(theirs!.ruleExecutionId).not.toBe(conv.data.ruleExecutionId)
  })

  test('amounts past what a float holds are read back as the partner wrote them', async () => {
    const id = `t-${version++}`
    // as JSON numbers these would read 9007199254740994, 8340000000000000 and 1.0799999999999998
    await tx(id, 1, { Direction: 'In', Status: 'Settled', Amount: '9007199254740993.000001', FiatPayment: { Amount: '8340000000000000.10', FeeAmount: '0.000000000000000010', Rate: '1.0799999999999999', FiatCurrency: 'EUR' }, Breakdown: [{ Type: 'Fee', Amount: '0.10' }] })
    const [event] = await tenantEventsAbout('ramp.transaction.updated', 'rampTransactionId', id, 1)
    const exact = { cryptoAmount: '9007199254740993.000001', fiatAmount: '8340000000000000.1', fiatFeeAmount: '0.00000000000000001', fiatRate: '1.0799999999999999' }
    expect(event.data).toMatchObject({ ...exact, breakdown: [{ type: 'Fee', amount: '0.1' }] })
    const list = await w.f.api.get('/v1/ramp/bank/payin/transactions?isTestnet=true&limit=100', { token: user.accessToken })
    const read = list.body.transactions.find((x: { rampTransactionId: string }) => x.rampTransactionId === id)
    expect(read).toMatchObject({ ...exact, exchangeRate: '1.0799999999999999', breakdown: [{ type: 'Fee', amount: '0.1' }] })
  })

  test('an adjustment names the transaction it reverses by Slipway\'s id', async () => {
    const first = `t-${version++}`
    await tx(first, 1, { Direction: 'In', Status: 'Settled', Amount: '5' })
    const [orig] = await tenantEventsAbout('ramp.transaction.updated', 'rampTransactionId', first, 1)
    const adj = `t-${version++}`
    await tx(adj, 1, { Direction: 'Out', Status: 'Settled', Amount: '1', AdjustmentFor: { AdjustedTransactionID: first, AdjustmentID: 'a1', Reason: 'ExchangeRateCorrection' } })
    const [e] = await tenantEventsAbout('ramp.transaction.updated', 'rampTransactionId', adj, 1)
    expect(e.data).toMatchObject({ reversesTransactionId: orig.data.transactionId, adjustment: { reason: 'ExchangeRateCorrection' } })
  })

  test('a transaction of a customer the tenant does not have is not applied', async () => {
    expect((await send({ EventType: 'Transaction', EventVersion: 1, Data: { ID: 'nobody', CustomerID: crypto.randomUUID(), Direction: 'In', Status: 'Settled' } })).body.outcome).toBe('unknown_record')
  })
})

describe('customer events', () => {
  const customer = (v: number, regions: Array<{ Entity: string; Status: string }>, status = 'Approved') => send({
    EventType: 'Customer', EventVersion: v,
    Data: {
      Type: 'Individual', CustomerID: customerId, Created: '2026-11-23T09:00:00Z', Verification: { Model: 'Standard', Status: status },
      Verifications: { Type: 'Individual', Status: status, EntityVerifications: regions.map((r) => ({ ...r, Model: 'Standard', Created: '2026-11-23T09:00:00Z', Modified: '2026-11-23T09:10:00Z' })) },
      FullName: { FirstName: 'Ada', LastName: 'Lovelace' },
    },
  })

  test('rule 7: an older customer event is dropped, unless it brings a region not yet known; names are never sent', async () => {
    const before = events(w.receiver, 'ramp.kyc.updated').length
    expect((await customer(50, [{ Entity: 'NoahEU', Status: 'Approved' }])).body.outcome).toBe('applied')
    await until(() => events(w.receiver, 'ramp.kyc.updated'), (e) => e.length >= before + 1)
    expect((await customer(40, [{ Entity: 'NoahEU', Status: 'Declined' }])).body.outcome).toBe('stale')
    expect((await customer(41, [{ Entity: 'NoahUS', Status: 'Approved' }])).body.outcome).toBe('applied')
    const all = await until(() => events(w.receiver, 'ramp.kyc.updated'), (e) => e.length >= before + 2)
    await Bun.sleep(200)
    expect(events(w.receiver, 'ramp.kyc.updated')).toHaveLength(before + 2)
    const last = all.at(-1)!
    expect(last.data.regions.map((r: { region: string; status: string }) => `${r.region}:${r.status}`).sort()).toEqual(['NoahEU:Approved', 'NoahUS:Approved'])
    expect(JSON.stringify(all)).not.toContain('Lovelace')
    const status = await w.f.api.get('/v1/ramp/bank/payin/onboarding-status?isTestnet=true', { token: user.accessToken })
    expect(status.body.regions).toHaveLength(2)
  })
})
