/**
 * Payout channels over the real adapter and the simulator on its own port: countries, the
 * channel search, and every status row of the channel form table (spec, Bank ramp payout
 * channel form), the answer validated against the returned JSON Schema with ajv.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import Ajv from 'ajv'
import type { SignedInUser } from '@tests/helpers/factories'
import { MisbehavingPartner } from '@tests/fakes/bank-ramp-partner'
import { onboard, rampWorld, type RampTenant, type RampWorld } from './world'

let w: RampWorld
let tenant: RampTenant
let user: SignedInUser
const partner = new MisbehavingPartner()

beforeAll(async () => {
  partner.start()
  w = await rampWorld()
  tenant = await w.rampTenant({ hook: false })
  user = await w.f.user(tenant)
})
afterAll(async () => {
  await w.stop()
  partner.stop()
})

const post = (path: string, body: unknown, token = user.accessToken) => w.f.api.post(path, body, { token })
const get = (path: string, token = user.accessToken) => w.f.api.get(path, { token })
const form = (channelId: string, body: Record<string, unknown>, token = user.accessToken) => post(`/v1/ramp/bank/payout/channels/${channelId}/form`, body, token)

async function sepaChannel(token = user.accessToken, country = 'DE') {
  const res = await post('/v1/ramp/bank/payout/channels/search', { isTestnet: true, country, fiatCurrency: 'EUR' }, token)
  expect(res.status).toBe(200)
  return res.body.channels.find((c: { paymentMethodType: string }) => c.paymentMethodType === 'BankSepa').channelId as string
}

/** A user whose hosted onboarding was opened but not decided: the partner knows them, KYC is pending. */
async function pendingUser() {
  const u = await w.f.user(tenant)
  const s = await post('/v1/ramp/bank/payin/onboard-session', { isTestnet: true }, u.accessToken)
  expect((await fetch(s.body.url)).status).toBe(200)
  await w.sim.settle()
  return u
}

describe('countries and channel search', () => {
  test('countries the simulator pays out to, each with its currencies', async () => {
    const res = await get('/v1/ramp/bank/payout/countries?isTestnet=true')
    expect(res.status).toBe(200)
    expect(res.body.environment).toBe('sandbox')
    expect(res.body.countries).toContainEqual({ country: 'DE', fiatCurrencies: ['EUR'] })
    expect(res.body.countries.map((c: { country: string }) => c.country)).toEqual([...res.body.countries.map((c: { country: string }) => c.country)].sort())
  })

  test('search by country, currency and amount: limits, rate and the fee for that amount as decimal text without trailing zeros', async () => {
    const res = await post('/v1/ramp/bank/payout/channels/search', { isTestnet: true, country: 'FR', fiatCurrency: 'EUR', fiatAmount: '250.00' })
    expect(res.status).toBe(200)
    expect(res.body.channels).toHaveLength(1)
    expect(res.body.channels[0]).toMatchObject({
      paymentMethodCategory: 'Bank', paymentMethodType: 'BankSepa', fiatCurrency: 'EUR', country: 'FR', limits: { min: '1', max: '15000' }, totalFee: '2.5', processingTier: 'Standard',
    })
    expect(res.body.channels[0].rate).toMatch(/^\d+(\.\d*[1-9])?$/)
    expect(res.body.channels[0].channelId).toMatch(/^[0-9a-f-]{36}$/)
    const none = await post('/v1/ramp/bank/payout/channels/search', { isTestnet: true, country: 'US' })
    expect(none.body.channels).toEqual([])
  })

  test('bad inputs answer 400 and call nobody', async () => {
    for (const body of [{ isTestnet: true, country: 'germany' }, { isTestnet: true, fiatAmount: '1.234' }, { isTestnet: true, fiatAmount: 12 }, { isTestnet: 'yes' }]) {
      const res = await post('/v1/ramp/bank/payout/channels/search', body)
      expect(res.status).toBe(400)
    }
  })
})

describe('channel form: every row of the table', () => {
  test('200 without KYC approval: a draft-07 object schema, its hash, and an answer ajv accepts', async () => {
    const u = await pendingUser()
    const status = await get('/v1/ramp/bank/payin/onboarding-status?isTestnet=true', u.accessToken)
    expect(status.body.kycStatus).not.toBe('approved')
    const channelId = await sepaChannel(u.accessToken)
    const res = await form(channelId, { isTestnet: true }, u.accessToken)
    expect(res.status).toBe(200)
    expect(Object.keys(res.body).sort()).toEqual(['channelId', 'environment', 'formContentHash', 'formSchema'])
    expect(res.body).toMatchObject({ environment: 'sandbox', channelId })
    const schema = res.body.formSchema
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#')
    expect(schema.type).toBe('object')
    expect(res.body.formContentHash).toMatch(/^[0-9a-f]{64}$/)
    // the hash is of the canonical schema: the same form twice gives the same hash
    expect((await form(channelId, { isTestnet: true }, u.accessToken)).body.formContentHash).toBe(res.body.formContentHash)
    expect(res.body.formContentHash).not.toBe(createHash('sha256').update('{}').digest('hex'))

    const validate = new Ajv({ strict: false }).compile(schema)
    // fill what the schema requires, from its own property definitions
    const answer: Record<string, string> = {}
    for (const field of schema.required as string[]) answer[field] = field === 'IBAN' ? 'DE89370400440532013000' : 'Ada Lovelace'
    expect(validate(answer)).toBe(true)
    expect(validate({ AccountHolderName: 'Ada' })).toBe(false)
    expect(validate({ ...answer, IBAN: 'not an iban' })).toBe(false)
  })

  test('400 when channelId is not a UUID', async () => {
    const res = await form('not-a-uuid', { isTestnet: true })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('Request validation failed')
  })

  test('403 RAMP_FUNCTION_OFF when payouts are switched off in that environment', async () => {
    const off = await w.rampTenant({ functions: { payout: false }, hook: false })
    const u = await w.f.user(off)
    const res = await form('0b5e1c9a-7d3f-4e21-9c4a-000000000003', { isTestnet: true }, u.accessToken)
    expect(res.status).toBe(403)
    expect(res.body.details).toEqual({ code: 'RAMP_FUNCTION_OFF', function: 'payout', environment: 'sandbox' })
  })

  test('403 when the tenant does not use the bank ramp, or the token has no tenant', async () => {
    const plain = await w.f.tenant()
    const u = await w.f.user(plain)
    const a = await form('0b5e1c9a-7d3f-4e21-9c4a-000000000003', { isTestnet: true }, u.accessToken)
    expect(a.status).toBe(403)
    expect(a.body.details.code).toBe('RAMP_NOT_USED')
    const b = await form('0b5e1c9a-7d3f-4e21-9c4a-000000000003', { isTestnet: true }, w.admin)
    expect(b.status).toBe(403)
  })

  test('404 RAMP_CUSTOMER_NOT_FOUND when the user has no bank ramp profile in that environment', async () => {
    const u = await w.f.user(tenant)
    const res = await form('0b5e1c9a-7d3f-4e21-9c4a-000000000003', { isTestnet: true }, u.accessToken)
    expect(res.status).toBe(404)
    expect(res.body.details).toEqual({ code: 'RAMP_CUSTOMER_NOT_FOUND', environment: 'sandbox' })
  })

  test('404 RAMP_RESOURCE_NOT_FOUND when the hosted onboarding was not started', async () => {
    const u = await w.f.user(tenant)
    expect((await post('/v1/ramp/bank/payin/onboard-session', { isTestnet: true }, u.accessToken)).status).toBe(200)
    const res = await form('0b5e1c9a-7d3f-4e21-9c4a-000000000003', { isTestnet: true }, u.accessToken)
    expect(res.status).toBe(404)
    expect(res.body).toMatchObject({ error: 'RampApiError', details: { code: 'RAMP_RESOURCE_NOT_FOUND' } })
  })

  test('the bank ramp\'s own refusals pass through with their status and details', async () => {
    const u = await pendingUser()
    // the card channel's form is never given out: the partner answers 400
    const card = (await post('/v1/ramp/bank/payout/channels/search', { isTestnet: true, country: 'DE' }, u.accessToken)).body.channels
      .find((c: { paymentMethodType: string }) => c.paymentMethodType === 'TokenizedCard').channelId
    const refused = await form(card, { isTestnet: true }, u.accessToken)
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ error: 'RampApiError', details: { code: 'RAMP_REQUEST_REFUSED', type: 'InvalidMessage' } })
    // an unknown saved payment method: the partner's 404
    const unknown = await form(await sepaChannel(u.accessToken), { isTestnet: true, paymentMethodId: 'Bank/Sepa/DE00000000000000000000' }, u.accessToken)
    expect(unknown.status).toBe(404)
    expect(unknown.body.details.code).toBe('RAMP_RESOURCE_NOT_FOUND')
  })

  test('a partner refusing with 422, and one that is down: passed through as 422, 503 RAMP_UNAVAILABLE', async () => {
    const t = await w.rampTenant({ hook: false })
    const u = await w.f.user(t)
    await onboard(w, u, 'more_info')
    // point the tenant's sandbox at the misbehaving partner from now on
    const res = await w.f.api.patch(`/v1/admin/tenants/${t.id}`, { bankRamp: { sandbox: { baseUrl: partner.url, apiKey: 'k' } } }, { token: w.admin })
    expect(res.status).toBe(200)
    partner.mode = 'refuse'
    const refused = await form('0b5e1c9a-7d3f-4e21-9c4a-000000000003', { isTestnet: true }, u.accessToken)
    expect(refused.status).toBe(422)
    expect(refused.body.details).toMatchObject({ code: 'RAMP_REQUEST_REFUSED', type: 'InvalidMessage', fields: { FiatCurrency: 'unsupported' } })
    partner.mode = 'down'
    const down = await form('0b5e1c9a-7d3f-4e21-9c4a-000000000003', { isTestnet: true }, u.accessToken)
    expect(down.status).toBe(503)
    expect(down.body.details.code).toBe('RAMP_UNAVAILABLE')
    partner.mode = 'ok'
  })

  test('production is read when isTestnet is false or omitted: 503 RAMP_NOT_CONFIGURED when it is not connected', async () => {
    const res = await form('0b5e1c9a-7d3f-4e21-9c4a-000000000003', {})
    expect(res.status).toBe(503)
    expect(res.body.details).toEqual({ code: 'RAMP_NOT_CONFIGURED', environment: 'production' })
  })

  test('bad bodies answer 400: a payment method id too long or empty, isTestnet not a boolean', async () => {
    for (const body of [{ paymentMethodId: 'x'.repeat(151) }, { paymentMethodId: '' }, { isTestnet: 'true' }]) {
      const res = await form('0b5e1c9a-7d3f-4e21-9c4a-000000000003', body)
      expect(res.status).toBe(400)
    }
  })
})
