/**
 * Bank details at rest (issue 30): a virtual IBAN (`ramp_payment_methods.iban`) and the
 * beneficiary a quote names (`ramp_payout_quotes.ramp_payment_method_id`, `Bank/Sepa/<IBAN>…`)
 * are stored sealed, bound to their tenant, table, row and column. The API answers what it
 * answered before; rows an earlier version wrote in clear still read, and `reseal` seals them.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import type { SignedInUser } from '@tests/helpers/factories'
import { Sealer } from '@/lib/crypto'
import { rampPaymentMethods, rampPayoutQuotes } from '@/modules/ramp/schema'
import { ibanAad, quoteMethodAad } from '@/modules/ramp/sealed'
import { reseal, sealedVersions } from '@/ops/reseal'
import { onboard, rampWorld, type RampTenant, type RampWorld } from './world'
import { sellOnSimulator, sepaChannel } from './partner-sell'

const IBAN = 'DE89370400440532013000'
let w: RampWorld
let tenant: RampTenant
let user: SignedInUser
let walletId: string

beforeAll(async () => {
  w = await rampWorld()
  tenant = await w.rampTenant()
  user = await w.f.user(tenant)
  const wallet = await w.f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: user.accessToken })
  expect(wallet.status).toBe(201)
  walletId = wallet.body.id
  await onboard(w, user, 'approve')
})
afterAll(async () => {
  await w.stop()
})

const db = () => w.t.deps.database.db
const methodRow = (id: string) => db().select().from(rampPaymentMethods).where(eq(rampPaymentMethods.id, id)).get()
const quoteRow = (id: string) => db().select().from(rampPayoutQuotes).where(eq(rampPayoutQuotes.id, id)).get()
const methodsRead = async () => (await w.f.api.get('/v1/ramp/bank/payin/payment-methods?isTestnet=true', { token: user.accessToken })).body.paymentMethods as Array<{ id: string; iban: string }>

/** A quote naming the beneficiary the simulator saved for IBAN (paid once by a sell). */
async function beneficiaryQuote() {
  const ben = await w.f.api.get('/v1/ramp/bank/payout/beneficiaries?isTestnet=true', { token: user.accessToken })
  const paymentMethodId = ben.body.beneficiaries.find((b: { accountNumberLast4: string }) => b.accountNumberLast4 === IBAN.slice(-4)).paymentMethodId as string
  expect(paymentMethodId).toStartWith(`Bank/Sepa/${IBAN}`)
  const q = await w.f.api.post('/v1/ramp/bank/payout/quotes', { channelId: await sepaChannel(w, user), walletId, fiatAmount: '12', paymentMethodId, isTestnet: true }, { token: user.accessToken })
  expect(q.status).toBe(200)
  return { quoteId: q.body.id as string, paymentMethodId }
}

describe('a virtual IBAN', () => {
  test('is stored sealed for its row; the API answers it as before, also after the partner hands the same account out again', async () => {
    const made = await w.f.api.post('/v1/ramp/bank/payin/initiate', { walletId, isTestnet: true }, { token: user.accessToken })
    expect(made.status).toBe(200)
    const iban = made.body.iban as string
    expect(iban).toMatch(/^DE\d{20}$/)
    const row = (await methodRow(made.body.id))!
    expect(row.iban).not.toContain(iban)
    expect(row.iban).not.toContain(iban.slice(4))
    expect(Sealer.isSealed(row.iban)).toBe(true)
    expect(w.t.deps.sealer.open(row.iban, ibanAad(tenant.id, row.id))).toBe(iban)
    // bound to its row: under another row's associated data it does not open
    expect(() => w.t.deps.sealer.open(row.iban, ibanAad(tenant.id, 'another-row'))).toThrow()
    expect((await methodsRead()).find((m) => m.id === made.body.id)!.iban).toBe(iban)
    // the same wallet again: the partner answers the same account, the row keeps its id and reads
    const again = await w.f.api.post('/v1/ramp/bank/payin/initiate', { walletId, isTestnet: true }, { token: user.accessToken })
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ id: made.body.id, iban })
    expect((await methodsRead()).find((m) => m.id === made.body.id)!.iban).toBe(iban)
  })

  test('a row an earlier version wrote in clear still reads; reseal seals it and it reads the same', async () => {
    const made = await w.f.api.post('/v1/ramp/bank/payin/initiate', { walletId, isTestnet: true }, { token: user.accessToken })
    const iban = made.body.iban as string
    await w.t.deps.database.write((tx) => tx.update(rampPaymentMethods).set({ iban }).where(eq(rampPaymentMethods.id, made.body.id)))
    expect((await methodRow(made.body.id))!.iban).toBe(iban)
    expect((await methodsRead()).find((m) => m.id === made.body.id)!.iban).toBe(iban)
    const before = await sealedVersions(w.t.deps)
    expect(before.byVersion.clear).toBe(1)
    expect(before.remaining).toBe(1)
    const report = await reseal(w.t.deps)
    expect(report.columns['ramp_payment_methods.iban']).toEqual({ resealed: 1, failed: 0 })
    expect(report.remaining).toBe(0)
    const row = (await methodRow(made.body.id))!
    expect(Sealer.isSealed(row.iban)).toBe(true)
    expect(w.t.deps.sealer.open(row.iban, ibanAad(tenant.id, row.id))).toBe(iban)
    expect((await methodsRead()).find((m) => m.id === made.body.id)!.iban).toBe(iban)
  })
})

describe('the beneficiary a quote names', () => {
  test('is stored sealed for its quote, with no account number in clear', async () => {
    await sellOnSimulator(w, tenant, user, walletId, { AccountHolderName: 'Ada Lovelace', IBAN })
    const { quoteId, paymentMethodId } = await beneficiaryQuote()
    const row = (await quoteRow(quoteId))!
    expect(row.rampPaymentMethodId).not.toContain(IBAN)
    expect(row.rampPaymentMethodId).not.toContain(IBAN.slice(4))
    expect(Sealer.isSealed(row.rampPaymentMethodId!)).toBe(true)
    expect(w.t.deps.sealer.open(row.rampPaymentMethodId!, quoteMethodAad(tenant.id, quoteId))).toBe(paymentMethodId)
    // the quote reads as before
    const read = await w.f.api.get(`/v1/ramp/bank/payout/quotes/${quoteId}?isTestnet=true`, { token: user.accessToken })
    expect(read.status).toBe(200)
    expect(read.body).toMatchObject({ id: quoteId, fiatAmount: '12', status: 'open' })
  })

  test('a quote an earlier version wrote in clear is sealed by reseal', async () => {
    const { quoteId, paymentMethodId } = await beneficiaryQuote()
    await w.t.deps.database.write((tx) => tx.update(rampPayoutQuotes).set({ rampPaymentMethodId: paymentMethodId }).where(eq(rampPayoutQuotes.id, quoteId)))
    expect((await sealedVersions(w.t.deps)).byVersion.clear).toBe(1)
    const report = await reseal(w.t.deps)
    expect(report.columns['ramp_payout_quotes.ramp_payment_method_id']).toEqual({ resealed: 1, failed: 0 })
    const row = (await quoteRow(quoteId))!
    expect(row.rampPaymentMethodId).not.toContain(IBAN)
    expect(w.t.deps.sealer.open(row.rampPaymentMethodId!, quoteMethodAad(tenant.id, quoteId))).toBe(paymentMethodId)
    expect((await w.f.api.get(`/v1/ramp/bank/payout/quotes/${quoteId}?isTestnet=true`, { token: user.accessToken })).status).toBe(200)
  })
})
