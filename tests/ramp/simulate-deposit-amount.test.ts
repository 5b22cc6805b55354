/** simulate-deposit checks the amount as written in the body: a float within rounding of a cent is not an amount with 2 decimals. */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { SignedInUser } from '@tests/helpers/factories'
import { onboard, rampWorld, type RampWorld } from './world'

let w: RampWorld
let user: SignedInUser
beforeAll(async () => {
  w = await rampWorld()
  const tenant = await w.rampTenant()
  user = await w.f.user(tenant)
  const wallet = await w.f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: user.accessToken })
  await onboard(w, user)
  expect((await w.f.api.post('/v1/ramp/bank/payin/initiate', { walletId: wallet.body.id, isTestnet: true }, { token: user.accessToken })).status).toBe(200)
})
afterAll(() => w.stop())

const simulate = (raw: string) => w.f.api.post('/v1/ramp/bank/payin/sandbox/simulate-deposit', undefined, { token: user.accessToken, raw, headers: { 'content-type': 'application/json' } })

test('100.000000001, 100.0000000000000001 (parses to exactly 100), 1e2 and 0.00 answer 400 in the spec\'s envelope; nothing is deposited', async () => {
  for (const amount of ['100.000000001', '100.0000000000000001', '1e2', '10.001', '0.00']) {
    const res = await simulate(`{"amount": ${amount}}`)
    expect({ amount, status: res.status }).toEqual({ amount, status: 400 })
    expect(res.body).toMatchObject({ statusCode: 400, error: 'BadRequestError', details: [{ path: '/amount', keyword: 'endpointCheck' }] })
  }
  const deposits = await w.f.api.get('/v1/ramp/bank/payin/deposits?isTestnet=true', { token: user.accessToken })
  expect(deposits.status).toBe(200)
  expect(JSON.stringify(deposits.body)).not.toContain('fiatAmount')
})

test('100.10 is deposited as the exact text "100.1", a nested "amount" does not stand in for the top-level one', async () => {
  const res = await simulate('{"meta": {"amount": 1.234}, "amount": 100.10}')
  expect(res.status).toBe(200)
  expect(res.body.fiatAmount).toBe('100.1')
  await w.sim.settle()
})
