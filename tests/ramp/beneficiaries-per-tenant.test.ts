/**
 * The simulator's saved beneficiaries belong to the account (tenant) and customer that paid
 * them: two tenants paying the same IBAN each see their own, and neither can use the other's
 * (issue 30). Their ids keep the partner's `Bank/Sepa/<IBAN>…` shape.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { SignedInUser } from '@tests/helpers/factories'
import { onboard, rampWorld, type RampTenant, type RampWorld } from './world'
import { sellOnSimulator, sepaChannel } from './partner-sell'

const IBAN = 'DE89370400440532013000'
let w: RampWorld

beforeAll(async () => {
  w = await rampWorld()
})
afterAll(async () => {
  await w.stop()
})

async function payer(tenant: RampTenant) {
  const user = await w.f.user(tenant)
  const wallet = await w.f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: user.accessToken })
  expect(wallet.status).toBe(201)
  await onboard(w, user, 'approve')
  return { tenant, user, walletId: wallet.body.id as string }
}

const beneficiaries = async (user: SignedInUser) => {
  const res = await w.f.api.get('/v1/ramp/bank/payout/beneficiaries?isTestnet=true', { token: user.accessToken })
  expect(res.status).toBe(200)
  return res.body.beneficiaries as Array<{ paymentMethodId: string; accountNumberLast4: string }>
}
const formWith = async (user: SignedInUser, paymentMethodId: string) =>
  w.f.api.post(`/v1/ramp/bank/payout/channels/${await sepaChannel(w, user)}/form`, { isTestnet: true, paymentMethodId }, { token: user.accessToken })

test('two tenants paying the same IBAN each keep their own beneficiary', async () => {
  const a = await payer(await w.rampTenant())
  const b = await payer(await w.rampTenant())
  await sellOnSimulator(w, a.tenant, a.user, a.walletId, { AccountHolderName: 'Ada Lovelace', IBAN })
  await sellOnSimulator(w, b.tenant, b.user, b.walletId, { AccountHolderName: 'Ada Lovelace', IBAN })

  const mineA = await beneficiaries(a.user)
  const mineB = await beneficiaries(b.user)
  expect(mineA).toHaveLength(1)
  expect(mineB).toHaveLength(1)
  expect(mineA[0]!.accountNumberLast4).toBe('3000')
  expect(mineB[0]!.accountNumberLast4).toBe('3000')
  expect(mineA[0]!.paymentMethodId).toStartWith(`Bank/Sepa/${IBAN}`)
  expect(mineA[0]!.paymentMethodId).not.toBe(mineB[0]!.paymentMethodId)

  // each pays again with its own saved account (nothing more to fill); the other's is unknown to it
  for (const [me, other] of [[a, mineB[0]!], [b, mineA[0]!]] as const) {
    const own = await formWith(me.user, (me === a ? mineA : mineB)[0]!.paymentMethodId)
    expect(own.status).toBe(200)
    expect(own.body.formSchema).toBeNull()
    const theirs = await formWith(me.user, other.paymentMethodId)
    expect(theirs.status).toBe(404)
  }

  // paying the same IBAN again keeps one beneficiary per tenant
  await sellOnSimulator(w, a.tenant, a.user, a.walletId, { AccountHolderName: 'Ada Lovelace', IBAN })
  expect(await beneficiaries(a.user)).toEqual(mineA)
  expect(await beneficiaries(b.user)).toEqual(mineB)
}, 30_000)
