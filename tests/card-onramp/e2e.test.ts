/**
 * Card onramp end to end over HTTP (issue 27): a session opened for a user's wallet with the
 * embedded sandbox provider (Stripe's crypto onramp protocol), moved through
 * `fulfillment_processing` to `fulfillment_complete`; the tenant's webhook receiver gets two
 * `ramp.card_session.updated` with exactly the spec's fields, verified with the spec's
 * signature scheme; on a local chain posing as Sepolia the wallet is credited with the test
 * stablecoin. Then the provider's events forged, stale, replayed and oversized, other tenants'
 * and users' ids, the tenant-signed variant, and the client secret nowhere.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { getAddress, type Address } from 'viem'
import { signEvent } from '@/adapters/card-onramp/stripe'
import { verifyDelivery } from '@/modules/webhooks/signature'
import { cardOnrampSessions } from '@/modules/card-onramp/schema'
import { systemClock } from '@/lib/clock'
import { makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { Api } from '@tests/helpers/client'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { WebhookReceiver } from '@tests/fakes/webhook-receiver'
import { FakeFcm } from '@tests/fakes/fcm'
import { until } from '@tests/helpers/until'
import { reader } from '@tests/transactions/helpers'
import { FUNDER_KEY, startLocalChain, type LocalChain } from '@tests/helpers/evm-node'

const USDC_SEPOLIA: Address = '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'
const SPEC_FIELDS = ['id', 'environment', 'status', 'providerStatus', 'providerSessionId', 'pair', 'destination', 'customer', 'requested', 'amounts', 'transactionId', 'failureCode', 'createdAt', 'updatedAt']

let chain: LocalChain
let t: TestApp
let server: HttpServer
let api: Api
let f: Factory
let tenant: Tenant
let other: Tenant
let hookSecret: string
let u: SignedInUser
let walletId: string
let walletAddress: Address
const receiver = new WebhookReceiver()
const fcm = new FakeFcm()

const cardEvents = () => receiver.received.map((r) => ({ r, e: JSON.parse(r.body) })).filter((x) => x.e.type === 'ramp.card_session.updated')
const sandbox = () => t.deps.cardOnrampSandbox!
/** The provider's own record of a session, read with the tenant's sandbox key (it holds the client secret). */
async function providerSession(tenantId: string, providerSessionId: string) {
  const res = await sandbox().providerFetch(`${sandbox().apiBaseUrl}/v1/crypto/onramp_sessions/${providerSessionId}`, { headers: { authorization: `Bearer ${sandbox().credentials(tenantId).apiKey}` } })
  return res.json() as Promise<Record<string, any>>
}
/** Posts a provider event as the sandbox provider would, signed with the tenant's sandbox webhook secret (`at`: its signing time). */
async function postEvent(tenantId: string, event: Record<string, unknown>, at = Date.now(), raw = JSON.stringify(event)) {
  return fetch(`${server.url}/v1/ramp/card/webhooks/sandbox/${tenantId}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': await signEvent(raw, sandbox().credentials(tenantId).webhookKey, at) }, body: raw,
  })
}

beforeAll(async () => {
  receiver.start()
  fcm.start()
  chain = await startLocalChain({ chainId: 11155111 })
  await chain.placeToken(USDC_SEPOLIA)
  t = await makeApp({
    clock: systemClock, jobs: true,
    env: {
      WEBHOOK_DEV_ROUTES: `hooks.slipway.test=${receiver.origin}`, RPC_URL_SEPOLIA: chain.url,
      FCM_SERVICE_ACCOUNT_JSON: fcm.serviceAccountJson(), FCM_BASE_URL: fcm.url,
      BANK_RAMP_SIMULATOR_RPC_URL: chain.url, BANK_RAMP_SIMULATOR_TOKEN_ADDRESS: USDC_SEPOLIA, BANK_RAMP_SIMULATOR_PRIVATE_KEY: FUNDER_KEY,
    },
  })
  server = serve(t)
  api = new Api(server.url)
  f = new Factory(t, api)
  const settings = { cardOnramp: { enabled: true, sandbox: { connected: true } } }
  tenant = await f.tenant(settings)
  other = await f.tenant(settings)
  const hook = await api.put(`/v1/admin/tenants/${tenant.id}/webhooks/sandbox`, { url: 'https://hooks.slipway.test/in', eventTypes: ['ramp.card_session.updated'] }, { token: await f.adminToken() })
  expect(hook.status).toBe(201)
  hookSecret = hook.body.secret
  u = await f.user(tenant)
  const w = await api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: u.accessToken })
  expect(w.status).toBe(201)
  walletId = w.body.id
  walletAddress = w.body.address
  expect((await api.patch('/v1/users/me/fcm-token', { token: 'card-user-device', locale: 'it' }, { token: u.accessToken })).status).toBeLessThan(300)
}, 30_000)
afterAll(async () => {
  await server?.stop()
  await t?.close()
  await chain?.stop()
  receiver.stop()
  fcm.stop()
})

describe('a card onramp session from start to delivery', () => {
  let session: Record<string, any>
  test('created for the user\'s wallet: 201 with the hosted page; moved to processing, then complete; two signed events with exactly the spec\'s fields; the wallet credited', async () => {
    const res = await api.post('/v1/ramp/card/sessions', { walletId, sourceCurrency: 'eur', sourceAmount: '50.00', destinationCurrency: 'usdc' }, { token: u.accessToken })
    expect(res.status).toBe(201)
    session = res.body
    // bun's toMatchObject leaves its asymmetric matchers in the object it checked: read first
    const redirectUrl = String(res.body.redirectUrl)
    expect(redirectUrl).toContain('/sandbox/card-onramp/session/cos_')
    expect({ ...session }).toMatchObject({
      environment: 'sandbox', status: 'initialized', providerStatus: 'initialized', customer: null,
      pair: { sourceCurrency: 'eur', destinationCurrency: 'usdc', destinationNetwork: 'ethereum' },
      destination: { walletId, address: walletAddress, chain: 'ethereum' }, requested: { sourceAmount: '50', destinationAmount: null },
      amounts: null, transactionId: null, failureCode: null,
    })
    expect(Object.keys(session).sort()).toEqual([...SPEC_FIELDS, 'redirectUrl'].sort())
    const page = await fetch(new URL(new URL(redirectUrl).pathname, server.url))
    expect(page.status).toBe(200)
    expect(await page.text()).toContain(session.providerSessionId)
    const act = (action: string) => fetch(`${server.url}/sandbox/card-onramp/session/${session.providerSessionId}/${action}`, { method: 'POST' })
    expect((await (await act('pay')).json() as { delivered: number }).delivered).toBe(200)
    // `complete` three times at once: the sandbox provider delivers the stablecoin once, the others are refused
    const completes = await Promise.all([act('complete'), act('complete'), act('complete')])
    expect(completes.map((r) => r.status).sort()).toEqual([200, 409, 409])
    expect((await completes.find((r) => r.status === 200)!.json() as { delivered: number }).delivered).toBe(200)
    const read = await api.get(`/v1/ramp/card/sessions/${session.id}`, { token: u.accessToken })
    expect({ ...read.body }).toMatchObject({ status: 'fulfillment_complete', providerStatus: 'fulfillment_complete', transactionId: expect.stringMatching(/^0x[0-9a-f]{64}$/), amounts: { sourceAmount: '50', sourceCurrency: 'eur', destinationAmount: '48.5', destinationCurrency: 'usdc' } })
    expect(Object.keys(read.body).sort()).toEqual([...SPEC_FIELDS].sort())
    // the devnet credit: 48.50 USDC to the wallet, in the transaction the session names
    expect(await reader(chain.url).tokenBalance(USDC_SEPOLIA, walletAddress)).toBe(48_500_000n)
    const got = await until(async () => cardEvents(), (x) => x.length >= 2)
    expect(got.map((x) => x.e.data.status)).toEqual(['fulfillment_processing', 'fulfillment_complete'])
    for (const { r, e } of got) {
      expect(verifyDelivery(hookSecret, new Headers(r.headers), r.body, Math.floor(Date.now() / 1000))).toEqual({ ok: true })
      expect(Object.keys(e.data).sort()).toEqual([...SPEC_FIELDS].sort())
      expect(e.data).toMatchObject({ id: session.id, environment: 'sandbox', providerSessionId: session.providerSessionId, customer: null })
      expect(e.id).toMatch(/^evt_[0-9a-f]{32}$/)
    }
    expect(got[1]!.e.data).toEqual(read.body)
    // the user's inbox shows both changes, in Italian; one push each to the user's device
    const inbox = await until(() => api.get('/v1/notifications/inbox', { token: u.accessToken }), (r) => r.body.notifications?.filter((n: { kind: string }) => n.kind === 'card_onramp.updated').length >= 2)
    const notices = inbox.body.notifications.filter((n: { kind: string }) => n.kind === 'card_onramp.updated')
    expect(notices.map((n: { data: { status: string; sessionId: string } }) => `${n.data.sessionId === session.id}:${n.data.status}`)).toEqual(['true:fulfillment_complete', 'true:fulfillment_processing'])
    expect(notices[0].data).toMatchObject({ destinationCurrency: 'usdc', destinationAmount: '48.5' })
    await until(async () => fcm.deliveredTo('card-user-device').length, (n) => n >= 2)
    await Bun.sleep(300)
    expect(fcm.deliveredTo('card-user-device')).toHaveLength(2)
    // one push per notice; the two push jobs run side by side, so they may reach FCM in either order
    // (on a busy machine the second overtook the first)
    expect(fcm.deliveredTo('card-user-device').map((m) => m.notification.title).sort()).toEqual(notices.map((n: { title: string }) => n.title).sort())
  }, 60_000)

  test('the provider\'s client secret is in no answer, event, log line or row', async () => {
    const secret = (await providerSession(tenant.id, session.providerSessionId)).client_secret as string
    expect(secret).toMatch(/_secret_/)
    const answers = JSON.stringify([
      session,
      (await api.get(`/v1/ramp/card/sessions/${session.id}`, { token: u.accessToken })).body,
      (await api.get('/v1/ramp/card/sessions', { token: u.accessToken })).body,
    ])
    const rows = JSON.stringify(await t.deps.database.db.select().from(cardOnrampSessions))
    for (const where of [answers, rows, receiver.received.map((r) => r.body).join('\n'), t.logs.join('\n')]) expect(where.includes(secret)).toBe(false)
  })

  test('repeated, stale and impossible events change nothing and send nothing; forged and oversized ones are refused', async () => {
    const before = cardEvents().length
    const obj = await providerSession(tenant.id, session.providerSessionId)
    // a repeat of the sandbox's last event for this session (same status): nothing moves
    expect(await sandbox().redeliver(session.providerSessionId)).toBe(200)
    // the same event id twice
    const event = { id: 'evt_repeat_1', object: 'event', type: 'crypto.onramp_session_updated', created: Math.floor(Date.now() / 1000), data: { object: obj } }
    for (let i = 0; i < 2; i++) expect(await (await postEvent(tenant.id, event)).json()).toEqual({ received: true, applied: false })
    // an older event saying processing, and one moving a complete session back
    for (const status of ['fulfillment_processing', 'initialized', 'rejected']) {
      const old = { ...event, id: `evt_old_${status}`, created: Math.floor(Date.now() / 1000) - 120, data: { object: { ...obj, status } } }
      expect(await (await postEvent(tenant.id, old)).json()).toEqual({ received: true, applied: false })
    }
    const late = { ...event, id: 'evt_back', created: Math.floor(Date.now() / 1000) + 1, data: { object: { ...obj, status: 'fulfillment_processing' } } }
    expect(await (await postEvent(tenant.id, late)).json()).toEqual({ received: true, applied: false })
    // forged: another secret; a signature 10 minutes old; another tenant's address for this tenant's event
    const raw = JSON.stringify({ ...event, id: 'evt_forged', data: { object: { ...obj, status: 'rejected' } } })
    const forged = await fetch(`${server.url}/v1/ramp/card/webhooks/sandbox/${tenant.id}`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': await signEvent(raw, 'whsec_not_the_secret', Date.now()) }, body: raw })
    expect(forged.status).toBe(401)
    expect((await postEvent(tenant.id, JSON.parse(raw), Date.now() - 600_000)).status).toBe(401)
    expect((await fetch(`${server.url}/v1/ramp/card/webhooks/sandbox/${tenant.id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw })).status).toBe(401)
    expect(await (await postEvent(other.id, JSON.parse(raw))).json()).toEqual({ received: true, applied: false })
    // oversized, even when signed
    const big = JSON.stringify({ ...event, id: 'evt_big', pad: 'x'.repeat(70_000) })
    expect((await postEvent(tenant.id, JSON.parse(big))).status).toBe(413)
    await Bun.sleep(300)
    expect(cardEvents().length).toBe(before)
    expect((await api.get(`/v1/ramp/card/sessions/${session.id}`, { token: u.accessToken })).body.status).toBe('fulfillment_complete')
  })
})

describe('other paths', () => {
  test('a rejected session, and a payment reversed while processing (failed): one event each', async () => {
    const before = cardEvents().length
    const a = (await api.post('/v1/ramp/card/sessions', { walletId, destinationAmount: '10.00' }, { token: u.accessToken })).body
    const b = (await api.post('/v1/ramp/card/sessions', { walletId, sourceAmount: '20.00' }, { token: u.accessToken })).body
    await fetch(`${server.url}/sandbox/card-onramp/session/${a.providerSessionId}/reject`, { method: 'POST' })
    await fetch(`${server.url}/sandbox/card-onramp/session/${b.providerSessionId}/pay`, { method: 'POST' })
    await fetch(`${server.url}/sandbox/card-onramp/session/${b.providerSessionId}/fail`, { method: 'POST' })
    expect((await api.get(`/v1/ramp/card/sessions/${a.id}`, { token: u.accessToken })).body).toMatchObject({ status: 'rejected', failureCode: 'rejected_by_provider' })
    expect((await api.get(`/v1/ramp/card/sessions/${b.id}`, { token: u.accessToken })).body).toMatchObject({ status: 'failed', providerStatus: 'requires_payment', failureCode: 'payment_reversed' })
    const got = await until(async () => cardEvents().slice(before), (x) => x.length >= 3)
    expect(got.map((x) => `${x.e.data.id === a.id ? 'a' : 'b'}:${x.e.data.status}`).sort()).toEqual(['a:rejected', 'b:failed', 'b:fulfillment_processing'])
  })

  test('another user\'s or tenant\'s session, and another user\'s wallet: 404; lists hold only the caller\'s', async () => {
    const mine = (await api.get('/v1/ramp/card/sessions', { token: u.accessToken })).body
    expect(mine.total).toBeGreaterThanOrEqual(3)
    const id = mine.sessions[0].id
    const neighbour = await f.user(tenant)
    const stranger = await f.user(other)
    for (const who of [neighbour, stranger]) {
      const res = await api.get(`/v1/ramp/card/sessions/${id}`, { token: who.accessToken })
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 404, code: 'CARD_ONRAMP_SESSION_NOT_FOUND' })
      expect((await api.get('/v1/ramp/card/sessions', { token: who.accessToken })).body).toMatchObject({ sessions: [], total: 0 })
      expect((await api.post('/v1/ramp/card/sessions', { walletId }, { token: who.accessToken })).status).toBe(404)
    }
    expect((await api.get(`/v1/ramp/card/tenant/sessions/${id}`, { signedBy: tenant })).status).toBe(404)
  })

  test('the tenant-signed variant: the tenant\'s own wallet for an end user; `customer` is the externalId', async () => {
    const res = await api.post('/v1/ramp/card/tenant/sessions', { externalId: 'customer-42', walletAddress: '0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0001', chain: 'ethereum', isTestnet: true, sourceAmount: '30.00' }, { signedBy: tenant })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ customer: 'customer-42', environment: 'sandbox', destination: { walletId: null, address: getAddress('0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0001'), chain: 'ethereum' } })
    expect((await api.get(`/v1/ramp/card/tenant/sessions/${res.body.id}`, { signedBy: tenant })).body.customer).toBe('customer-42')
    expect((await api.get('/v1/ramp/card/tenant/sessions?externalId=customer-42', { signedBy: tenant })).body).toMatchObject({ total: 1, sessions: [{ id: res.body.id }] })
    expect((await api.get(`/v1/ramp/card/tenant/sessions/${res.body.id}`, { signedBy: other })).status).toBe(404)
    expect((await api.get(`/v1/ramp/card/sessions/${res.body.id}`, { token: u.accessToken })).status).toBe(404)
  })

  test('bad inputs answer 400; a tenant without the card onramp 403; both amounts 400; an unsupported chain 400', async () => {
    for (const body of [{}, { walletId: 'x' }, { walletId, sourceAmount: '1e3' }, { walletId, sourceAmount: 50 }, { walletId, destinationCurrency: 'USDC' }]) {
      expect((await api.post('/v1/ramp/card/sessions', body, { token: u.accessToken })).status).toBe(400)
    }
    const both = await api.post('/v1/ramp/card/sessions', { walletId, sourceAmount: '1.00', destinationAmount: '1.00' }, { token: u.accessToken })
    expect(both.body.code).toBe('CARD_ONRAMP_AMOUNTS')
    const off = await f.tenant()
    const offUser = await f.user(off)
    const w = await api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: offUser.accessToken })
    const refused = await api.post('/v1/ramp/card/sessions', { walletId: w.body.id }, { token: offUser.accessToken })
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: 'CARD_ONRAMP_NOT_ENABLED' })
    const gnosis = await api.post('/v1/ramp/card/tenant/sessions', { externalId: 'c1', walletAddress: '0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0001', chain: 'gnosis', isTestnet: true }, { signedBy: tenant })
    expect(gnosis.body.code).toBe('CARD_ONRAMP_CHAIN_UNSUPPORTED')
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc']) expect((await api.get(`/v1/ramp/card/sessions?${q}`, { token: u.accessToken })).status).toBe(400)
  })
})
