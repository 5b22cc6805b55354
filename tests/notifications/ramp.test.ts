/**
 * Bank ramp changes reach the user's inbox (tests/ramp/world.ts: Slipway on 127.0.0.1, the
 * sandbox simulator as its own server posting signed partner webhooks): a KYC status that
 * changes, a new deposit or a deposit status that changes, a payout status that changes. An
 * event that changes nothing the user sees (a sub-status, a repeat) reaches the tenant's
 * webhook and not the inbox.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { newId } from '@/lib/ids'
import { advancePayout } from '@/modules/ramp/payout-run'
import { findCustomer, findMethodByRampId, insertPayout } from '@/modules/ramp/repo'
import { rampPaymentMethods } from '@/modules/ramp/schema'
import { eq } from 'drizzle-orm'
import type { SignedInUser } from '@tests/helpers/factories'
import { events, onboard, postPartnerEvent, rampWorld, until, type RampTenant, type RampWorld } from '@tests/ramp/world'

let w: RampWorld
let tenant: RampTenant
let user: SignedInUser

beforeAll(async () => {
  w = await rampWorld()
  tenant = await w.rampTenant()
  user = await w.f.user(tenant)
  expect((await w.f.api.patch('/v1/users/me/fcm-token', { token: null, locale: 'it' }, { token: user.accessToken })).status).toBe(200)
}, 30_000)
afterAll(() => w.stop())

const inbox = async (kind?: string) => {
  const res = await w.f.api.get('/v1/notifications/inbox?limit=100', { token: user.accessToken })
  expect(res.status).toBe(200)
  return (res.body.notifications as Array<{ kind: string; title: string; body: string; data: Record<string, string | null> }>).filter((n) => !kind || n.kind === kind).reverse()
}

describe('bank ramp notifications', () => {
  test('KYC: one notification per status the user sees (in review, approved), none for an event that changes no status', async () => {
    await onboard(w, user, 'approve')
    await until(() => inbox('ramp.kyc'), (n) => n.length >= 2)
    const kyc = await inbox('ramp.kyc')
    expect(kyc.map((n) => [n.data.kycStatus, n.title])).toEqual([['pending', 'Verifica in corso'], ['approved', 'Verifica approvata']])
    expect(kyc[1]!.data).toEqual({ environment: 'sandbox', kycStatus: 'approved' })
    // a later customer event with the same decision (a new region): the tenant hears of it, the user not
    const customer = (await findCustomer(w.t.deps.database.db, tenant.id, 'sandbox', user.id))!
    const hooks = (await until(() => events(w.receiver, 'ramp.kyc.updated'), (e) => e.length >= 2)).length
    const res = await postPartnerEvent(tenant.webhookUrl, tenant.webhookKey, {
      EventType: 'Customer', EventVersion: 90, Occurred: new Date().toISOString(),
      Data: { Type: 'Individual', CustomerID: customer.id, Verification: { Model: 'Standard', Status: 'Approved' }, Verifications: { Type: 'Individual', Status: 'Approved', EntityVerifications: [{ Entity: 'NoahUS', Status: 'Approved', Model: 'Standard' }] } },
    })
    expect(res.body.outcome).toBe('applied')
    await until(() => events(w.receiver, 'ramp.kyc.updated').length, (n) => n === hooks + 1)
    await Bun.sleep(200)
    expect(await inbox('ramp.kyc')).toHaveLength(2)
  }, 30_000)

  test('deposits: a new deposit and each status change, with amounts as decimal text; a repeat or a sub-status alone adds nothing', async () => {
    const wallet = await w.f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: user.accessToken })
    const iban = await w.f.api.post('/v1/ramp/bank/payin/initiate', { walletId: wallet.body.id, isTestnet: true }, { token: user.accessToken })
    expect(iban.status).toBe(200)
    const method = await w.t.deps.database.db.select().from(rampPaymentMethods).where(eq(rampPaymentMethods.id, iban.body.id)).get()
    expect(await findMethodByRampId(w.t.deps.database.db, tenant.id, 'sandbox', method!.rampPaymentMethodId)).toBeDefined()
    const deposit = (v: number, data: Record<string, unknown>) => postPartnerEvent(tenant.webhookUrl, tenant.webhookKey, {
      EventType: 'FiatDeposit', EventVersion: v, Occurred: new Date().toISOString(),
      Data: { ID: 'dep-notify-1', PaymentMethodID: method!.rampPaymentMethodId, Status: 'Pending', FiatAmount: '250.500', FiatCurrency: 'EUR', PaymentMethodType: 'BankSepa', Refunds: [], Created: '2026-11-23T09:00:00Z', ...data },
    })
    expect((await deposit(1, { SubStatus: 'AmlScreening' })).body.outcome).toBe('applied')
    expect((await deposit(2, { SubStatus: 'UnderReview' })).body.outcome).toBe('applied')
    expect((await deposit(3, { Status: 'Settled' })).body.outcome).toBe('applied')
    expect((await deposit(3, { Status: 'Settled' })).body.outcome).toBe('stale')
    const notes = await inbox('ramp.deposit')
    expect(notes.map((n) => [n.data.status, n.title, n.body])).toEqual([
      ['pending', 'Bonifico ricevuto', 'Abbiamo ricevuto il tuo bonifico di 250,5 EUR: è in lavorazione.'],
      ['completed', 'Deposito completato', 'Il tuo deposito di 250,5 EUR tramite bonifico è completato.'],
    ])
    expect(notes[1]!.data).toMatchObject({ environment: 'sandbox', status: 'completed', fiatAmount: '250.5', fiatCurrency: 'EUR' })
    expect(notes[1]!.data.depositId).toMatch(/^[0-9a-f-]{36}$/)
    // never the IBAN or the partner's payment method id
    expect(JSON.stringify(notes)).not.toContain(iban.body.iban)
    expect(JSON.stringify(notes)).not.toContain(method!.rampPaymentMethodId)
  }, 30_000)

  test('payouts: each status the partner\'s events move it to', async () => {
    // a payout as the pay-out flow records it once its transfer is on chain (tests/ramp/payouts.test.ts runs that flow)
    const customer = (await findCustomer(w.t.deps.database.db, tenant.id, 'sandbox', user.id))!
    const id = newId()
    const now = Date.now()
    await w.t.deps.database.write((tx) => insertPayout(tx, tenant.id, {
      id, environment: 'sandbox', userId: user.id, quoteId: newId(), walletId: newId(), chain: 'ethereum', cryptoCurrency: 'USDC', cryptoAuthorizedAmount: '46759260',
      fiatAmount: '42.00', fiatCurrency: 'EUR', exchangeRate: '1.08', totalFee: '0.43', status: 'pending', rampTransactionId: null, chainTransactionId: null, txHash: null, failureReason: null, createdAt: now, updatedAt: now,
    }))
    const sell = (v: number, status: string) => postPartnerEvent(tenant.webhookUrl, tenant.webhookKey, {
      EventType: 'Transaction', EventVersion: v, Occurred: new Date().toISOString(),
      Data: { ID: 'sell-notify-1', Network: 'EthereumTestSepolia', Created: new Date().toISOString(), Status: status, Direction: 'Out', CustomerID: customer.id, CryptoCurrency: 'USDC_TEST', Amount: '46.296297', ExternalID: id, FiatPayment: { Amount: '42.00', FeeAmount: '0.43', Rate: '1.08', FiatCurrency: 'EUR' }, Breakdown: [], Refunds: [] },
    })
    expect((await sell(1, 'Pending')).body.outcome).toBe('applied')
    expect((await sell(2, 'Pending')).body.outcome).toBe('applied')
    expect((await sell(3, 'Settled')).body.outcome).toBe('applied')
    const notes = await inbox('ramp.payout')
    expect(notes.map((n) => [n.data.status, n.title, n.body])).toEqual([
      ['processing', 'Prelievo in corso', 'Il tuo prelievo di 42,00 EUR è in arrivo sul tuo conto.'],
      ['completed', 'Prelievo completato', 'Il tuo prelievo di 42,00 EUR è stato inviato al tuo conto.'],
    ])
    expect(notes[1]!.data).toEqual({
      payoutId: id, environment: 'sandbox', status: 'completed', fiatAmount: '42.00', fiatCurrency: 'EUR', cryptoCurrency: 'USDC', cryptoAuthorizedAmount: '46759260', failureReason: null,
    })
  }, 30_000)

  test('a payout the job fails (its transfer was never sent) is told with the failure', async () => {
    const id = newId()
    // recorded ten minutes ago and never sent: its hold lapsed, so the payout job fails it
    const at = w.t.clock.now() - 600_000
    await w.t.deps.database.write((tx) => insertPayout(tx, tenant.id, {
      id, environment: 'sandbox', userId: user.id, quoteId: newId(), walletId: newId(), chain: 'ethereum', cryptoCurrency: 'USDC', cryptoAuthorizedAmount: '1000000',
      fiatAmount: '0.90', fiatCurrency: 'EUR', exchangeRate: '1.08', totalFee: '0.01', status: 'pending', rampTransactionId: null, chainTransactionId: null, txHash: null, failureReason: null, createdAt: at, updatedAt: at,
    }))
    await advancePayout(w.t.deps, tenant.id, { payoutId: id, environment: 'sandbox', attempt: 1 })
    const failed = (await inbox('ramp.payout')).filter((n) => n.data.payoutId === id)
    expect(failed.map((n) => [n.data.status, n.title, n.body])).toEqual([['failed', 'Prelievo non riuscito', 'Il tuo prelievo di 0,90 EUR non è stato completato.']])
    expect(failed[0]!.data.failureReason).toBe('The transfer to the bank ramp was never sent')
    // run again: already failed, nothing more
    await advancePayout(w.t.deps, tenant.id, { payoutId: id, environment: 'sandbox', attempt: 2 })
    expect((await inbox('ramp.payout')).filter((n) => n.data.payoutId === id)).toHaveLength(1)
  })
})
