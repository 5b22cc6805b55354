/**
 * Tenant isolation over every route of the OpenAPI document that takes an id: another
 * tenant's id answers exactly like an unknown one (same status, same body), for each kind
 * of caller of the other tenant. The routes are read from the document, so a new route
 * with an id in its path fails here until its id kind is named in ID_KINDS below.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { systemClock } from '@/lib/clock'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { startLocalChain, type LocalChain } from '@tests/helpers/evm-node'
import { SoftAuthenticator } from '@tests/helpers/soft-authenticator'
import { custodialWallet, waitFor } from '@tests/transactions/helpers'

let t: TestApp
let f: Factory
let node: LocalChain
let a: Tenant
let b: Tenant
const ids: Record<string, string> = {}
let own: { operator: SignedInUser; user: SignedInUser }
let other: { operator: SignedInUser; user: SignedInUser }

/** What each path parameter names; `null` for parameters that are not ids of a tenant's records. */
function idKind(path: string, param: string): string | null {
  // a payout channel is the bank ramp's, the same for every tenant
  if (param === 'environment' || param === 'chain' || param === 'channelId' || param === 'network') return null
  if (param === 'quoteId') return 'payoutQuote'
  if (param === 'payoutId') return 'payout'
  if (path.startsWith('/v1/ramp/bank/addresses/{id}')) return 'provenAddress'
  if (param === 'deliveryId') return 'delivery'
  if (path.startsWith('/v1/admin/tenants/{id}') || path.startsWith('/v1/ramp/bank/webhooks/') || param === 'tenantId') return 'tenant'
  if (param === 'agentId') return 'apAgent'
  if (param === 'policyId') return 'apPolicy'
  if (param === 'merchantId') return 'apMerchant'
  if (param === 'mandateId') return 'apMandate'
  if (param === 'executionId') return 'apExecution'
  if (param === 'approvalId') return 'apApproval'
  if (param === 'webhookId') return 'apWebhook'
  if (param === 'shopperId') return 'apShopper'
  if (param === 'keyId') return path.startsWith('/v1/agent-payments/agents/') ? 'apAgentKey' : 'apMerchantKey'
  if (path.startsWith('/v1/mpc/relay/session/{id}')) return 'mpcSession'
  if (path.startsWith('/v1/ramp/card/sessions/{id}')) return 'cardSession'
  if (path.startsWith('/v1/ramp/card/tenant/sessions/{id}')) return 'cardTenantSession'
  if (param === 'walletId') return 'wallet'
  if (path.startsWith('/v1/users/{id}')) return 'user'
  if (path.startsWith('/v1/passkeys/{id}')) return 'passkey'
  if (path.startsWith('/v1/wallets/{id}')) return 'wallet'
  if (path.startsWith('/v1/transactions/aggregated/{id}')) return 'feedItem'
  if (path.startsWith('/v1/transactions/{id}')) return 'transaction'
  throw new Error(`${path}: say what {${param}} names in idKind, and create one in beforeAll`)
}

/** A valid body for the routes that take one, so a refusal comes from the lookup, not the schema. */
const BODIES: Record<string, unknown> = {
  'PATCH /v1/admin/tenants/{id}': { name: 'renamed' },
  'PUT /v1/users/{id}': { email: 'changed@example.com' },
  'PATCH /v1/passkeys/{id}': { name: 'renamed' },
  'PUT /v1/admin/tenants/{id}/gas-policies/{network}': { enabled: true, operations: ['send'] },
  'PUT /v1/admin/tenants/{id}/webhooks/{environment}': { url: 'https://hooks.slipway.test/in', eventTypes: ['ramp.deposit.updated'] },
  'POST /v1/transactions/{id}/broadcast': { signedTransaction: '0x02' },
  'POST /v1/ramp/bank/payout/quotes/{quoteId}/steps': { isTestnet: true },
  'POST /v1/mpc/wallets/{walletId}/sign/start': { preparedTransactionId: '00000000-0000-4000-8000-000000000000' },
  'POST /v1/mpc/relay/session/{id}/join': { partyId: 0 },
  'POST /v1/mpc/relay/session/{id}/msg': { from: 0, to: 1, round: 1, payload: 'AAEC' },
  'POST /v1/mpc/relay/session/{id}/result': { partyId: 0, publicKey: `0x02${'ab'.repeat(32)}` },
  'PATCH /v1/agent-payments/agents/{agentId}': { name: 'renamed' },
  'POST /v1/agent-payments/agents/{agentId}/api-keys': { name: 'k' },
  'PATCH /v1/agent-payments/policies/{policyId}': { name: 'renamed' },
  'POST /v1/agent-payments/policies/{policyId}/simulate': { agentId: '00000000-0000-4000-8000-000000000000', amount: '1', currency: 'USDC', rail: 'onchain' },
  'PATCH /v1/agent-payments/merchants/{merchantId}': { name: 'renamed' },
  'PATCH /v1/agent-payments/webhooks/{webhookId}': { enabled: true },
  'POST /v1/agent-payments/merchants/{merchantId}/api-keys': { name: 'k', scopes: ['shoppers:read'] },
  'PATCH /v1/agent-payments/shoppers/{shopperId}': { email: 'changed@example.com' },
  'POST /v1/agent-payments/shoppers/{shopperId}/key': {
    publicKeyJwk: { kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' },
    authorization: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln',
  },
}
/** Payout records live in the sandbox (production payouts are refused before any lookup). */
const query = (path: string) => (path.startsWith('/v1/ramp/bank/payout/') || path.startsWith('/v1/ramp/bank/addresses/') ? '?isTestnet=true' : path.endsWith('/inbox') ? '?partyId=0' : '')
/** Owner's GETs that find the record and still refuse the call, and why. */
const OWNER_REFUSALS: Record<string, number> = {
  // a DKG session (the one made here) signs nothing: found, and answered 400 MPC_NOT_A_SIGNING_SESSION
  '/v1/mpc/relay/session/{id}/msghash': 400,
  // tenant-signed: a bearer token is no credential here (tests/card-onramp/e2e.test.ts signs as the other tenant: 404)
  '/v1/ramp/card/tenant/sessions/{id}': 401,
  // the execution made here is rejected (its agent had no policy): found, and no receipt (404 RECEIPT_NOT_READY)
  '/v1/agent-payments/executions/{executionId}/receipt': 404,
}
const USDC_SEPOLIA = '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238' as const

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000'
/** An unknown id of the same shape as a real one, so both pass the same schema checks. */
const unknownId = (kind: string) => (kind === 'delivery' ? `evt_${'0'.repeat(32)}` : UNKNOWN_ID)

beforeAll(async () => {
  node = await startLocalChain({ chainId: 1 })
  await node.installMulticall3()
  t = await makeApp({ clock: systemClock, jobs: true, env: { RPC_TIMEOUT_MS: '3000', WEBHOOK_DEV_ROUTES: 'hooks.slipway.test=http://127.0.0.1:9' } })
  f = new Factory(t)
  await node.placeToken(USDC_SEPOLIA)
  const settings = { chains: { rpc: { ethereum: node.url, sepolia: node.url } }, bankRamp: { sandbox: { connected: true, functions: { kyc: true, payin: true, payout: true } } } }
  a = await f.tenant(settings)
  b = await f.tenant(settings)
  own = { operator: await f.tenantAdmin(a), user: await f.user(a) }
  other = { operator: await f.tenantAdmin(b), user: await f.user(b) }
  const admin = await f.adminToken()
  ids.tenant = a.id
  ids.user = own.user.id
  const wallet = await custodialWallet(f.api, own.user)
  ids.wallet = wallet.id
  await node.sendNative(wallet.address as `0x${string}`, parseEther('1'))
  const sent = await f.api.post('/v1/transactions/', { walletId: wallet.id, chain: 'ethereum', toAddress: privateKeyToAccount(generatePrivateKey()).address, amount: '1000' }, { token: own.user.accessToken })
  expect(sent.status).toBe(201)
  ids.transaction = sent.body.id
  const feed = await waitFor(() => f.api.get('/v1/transactions/aggregated/', { token: own.user.accessToken }), (r) => r.body?.data?.length > 0)
  ids.feedItem = feed.body.data[0].id
  const hook = await f.api.put(`/v1/admin/tenants/${a.id}/webhooks/sandbox`, BODIES['PUT /v1/admin/tenants/{id}/webhooks/{environment}'], { token: admin })
  expect(hook.status).toBe(201)
  const test = await f.api.post(`/v1/admin/tenants/${a.id}/webhooks/sandbox/test`, {}, { token: admin })
  expect([200, 202]).toContain(test.status)
  const deliveries = await f.api.get(`/v1/admin/tenants/${a.id}/webhooks/sandbox/deliveries`, { token: admin })
  ids.delivery = deliveries.body.data[0].id
  await payoutRecords()
  await cardSessions()
  await agentPayments()
  await mpcSession()
  await passkey()
}, 60_000)

/** A passkey of the user, registered with a software authenticator on the tenant's relying party. */
async function passkey() {
  const patch = await f.api.patch(`/v1/admin/tenants/${a.id}`, { passkeys: { rpId: 'app.example', origins: ['https://app.example'] } }, { token: await f.adminToken() })
  expect(patch.status).toBe(200)
  const options = await f.api.post('/v1/passkeys/registration/options', {}, { token: own.user.accessToken })
  const response = new SoftAuthenticator().create(options.body, 'https://app.example')
  const created = await f.api.post('/v1/passkeys/registration/verify', { response }, { token: own.user.accessToken })
  expect(created.status).toBe(201)
  ids.passkey = created.body.id
}

/** One of each agent payments record: an agent with a key, a policy, a merchant with a key, a mandate. */
async function agentPayments() {
  const token = own.operator.accessToken
  const wallet = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: own.user.accessToken })
  const policy = await f.api.post('/v1/agent-payments/policies', { name: 'p', currency: 'USDC', limits: [] }, { token })
  expect(policy.status).toBe(201)
  ids.apPolicy = policy.body.id
  const agent = await f.api.post('/v1/agent-payments/agents', { name: 'a', walletId: wallet.body.id }, { token })
  expect(agent.status).toBe(201)
  ids.apAgent = agent.body.id
  // the wallet's owner lets the agent pay from it (docs/agent-payments.md, "The wallet owner's consent")
  expect((await f.api.post(`/v1/agent-payments/agents/${ids.apAgent}/wallet-consent`, {}, { token: own.user.accessToken })).status).toBe(200)
  ids.apAgentKey = (await f.api.post(`/v1/agent-payments/agents/${ids.apAgent}/api-keys`, { name: 'k' }, { token })).body.id
  const merchant = await f.api.post('/v1/agent-payments/merchants', { name: 'm', payTo: { network: 'sepolia', address: privateKeyToAccount(generatePrivateKey()).address } }, { token })
  expect(merchant.status).toBe(201)
  ids.apMerchant = merchant.body.id
  ids.apMerchantKey = (await f.api.post(`/v1/agent-payments/merchants/${ids.apMerchant}/api-keys`, { name: 'k', scopes: ['shoppers:read'] }, { token })).body.id
  const shopper = await f.api.post('/v1/agent-payments/shoppers', { externalRef: 'c', merchantId: ids.apMerchant }, { token })
  expect(shopper.status).toBe(201)
  ids.apShopper = shopper.body.id
  const mandate = await f.api.post('/v1/agent-payments/mandates', { type: 'intent', agentId: ids.apAgent, constraints: { maxAmount: '5', currency: 'USDC' }, expiresAt: new Date(Date.now() + 86_400_000).toISOString(), humanPresent: false }, { token })
  expect(mandate.status).toBe(201)
  ids.apMandate = mandate.body.id
  // an execution judged without a policy (rejected: nothing is sent), then one that waits for an approval
  const pay = { agentId: ids.apAgent, merchantId: ids.apMerchant, amount: '1', currency: 'USDC', rail: 'onchain' }
  const rejected = await f.api.post('/v1/agent-payments/executions', pay, { token })
  expect(rejected.body.status).toBe('rejected')
  ids.apExecution = rejected.body.id
  const always = await f.api.post('/v1/agent-payments/policies', { name: 'ask', currency: 'USDC', limits: [], approvalMode: 'always' }, { token })
  expect((await f.api.patch(`/v1/agent-payments/agents/${ids.apAgent}`, { policyId: always.body.id }, { token })).status).toBe(200)
  const waiting = await f.api.post('/v1/agent-payments/executions', pay, { token })
  expect(waiting.body.status).toBe('requires_approval')
  ids.apApproval = (await f.api.get('/v1/agent-payments/approvals?status=pending', { token })).body.data[0].id
  const hook = await f.api.post('/v1/agent-payments/webhooks', { url: 'https://hooks.example.com/agent-payments', eventTypes: [] }, { token })
  expect(hook.status).toBe(201)
  ids.apWebhook = hook.body.id
}

/** A card onramp session of the user and one of the tenant's own wallet, with the embedded sandbox provider. */
async function cardSessions() {
  const patch = await f.api.patch(`/v1/admin/tenants/${a.id}`, { cardOnramp: { enabled: true, sandbox: { connected: true } } }, { token: await f.adminToken() })
  expect(patch.status).toBe(200)
  const w = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: own.user.accessToken })
  const s = await f.api.post('/v1/ramp/card/sessions', { walletId: w.body.id, sourceAmount: '20.00' }, { token: own.user.accessToken })
  expect(s.status).toBe(201)
  ids.cardSession = s.body.id
  const ts = await f.api.post('/v1/ramp/card/tenant/sessions', { externalId: 'c-1', walletAddress: w.body.address, chain: 'ethereum', isTestnet: true }, { signedBy: a })
  expect(ts.status).toBe(201)
  ids.cardTenantSession = ts.body.id
}

/** A DKG session of the user, once the tenant uses MPC wallets (its service party, with no relay to reach here, just gives up). */
async function mpcSession() {
  const patch = await f.api.patch(`/v1/admin/tenants/${a.id}`, { walletMode: 'mpc' }, { token: await f.adminToken() })
  expect(patch.status).toBe(200)
  const s = await f.api.post('/v1/mpc/wallets/dkg/start', { chain: 'sepolia' }, { token: own.user.accessToken })
  expect(s.status).toBe(200)
  ids.mpcSession = s.body.sessionId
}

/** A payout quote and a payout of the user: the embedded sandbox simulator, the local node as Sepolia. */
async function payoutRecords() {
  const token = own.user.accessToken
  const session = await f.api.post('/v1/ramp/bank/payin/onboard-session', { isTestnet: true }, { token })
  expect(session.status).toBe(200)
  expect((await t.handle(new Request(session.body.url))).status).toBe(200)
  const decided = await t.handle(new Request(`${session.body.url}/decision`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=approve' }))
  expect(decided.status).toBe(200)
  await t.deps.bankRampSimulator!.settle()
  const wallet = await f.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token })
  await node.sendNative(wallet.body.address, parseEther('1'))
  await node.sendToken(wallet.body.address, 50_000_000n, USDC_SEPOLIA)
  const channels = await f.api.post('/v1/ramp/bank/payout/channels/search', { isTestnet: true, country: 'DE' }, { token })
  const channelId = channels.body.channels.find((c: { paymentMethodType: string }) => c.paymentMethodType === 'BankSepa').channelId
  const quote = await f.api.post('/v1/ramp/bank/payout/quotes', { channelId, walletId: wallet.body.id, fiatAmount: '10.00', form: { AccountHolderName: 'Ada Lovelace', IBAN: 'DE89370400440532013000' }, isTestnet: true }, { token })
  expect(quote.status).toBe(200)
  ids.payoutQuote = quote.body.id
  const payout = await f.api.post('/v1/ramp/bank/payout/payouts', { quoteId: quote.body.id, isTestnet: true }, { token })
  expect(payout.status).toBe(200)
  ids.payout = payout.body.id
  await t.deps.bankRampSimulator!.settle()
  const account = privateKeyToAccount(generatePrivateKey())
  const challenge = await f.api.post('/v1/ramp/bank/addresses/challenge', { chain: 'ethereum', address: account.address, isTestnet: true }, { token })
  const proven = await f.api.post('/v1/ramp/bank/addresses/verify', { challengeId: challenge.body.challengeId, signature: await account.signMessage({ message: challenge.body.message }), isTestnet: true }, { token })
  expect(proven.status).toBe(200)
  ids.provenAddress = proven.body.id
}

afterAll(async () => {
  await t.close()
  await node.stop()
})

interface Route { method: string; path: string; params: string[] }

async function routesWithIds(): Promise<Route[]> {
  const doc = (await f.api.get('/v1/docs/json')).body as { paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }> }>> }
  const routes: Route[] = []
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const params = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name)
      if (params.some((p) => idKind(path, p) !== null)) routes.push({ method: method.toUpperCase(), path, params })
    }
  }
  return routes
}

function url(route: Route, foreign: boolean) {
  let out = route.path
  for (const p of route.params) {
    const kind = idKind(route.path, p)
    const value = kind === null ? (p === 'environment' ? 'sandbox' : 'ethereum') : foreign ? ids[kind] : unknownId(kind)
    if (value === undefined) throw new Error(`no ${kind} id was created for ${route.path}`)
    out = out.replace(`{${p}}`, value)
  }
  return out + query(route.path)
}

/** The answer without what differs between any two requests. */
const comparable = (r: { status: number; body: unknown }) => ({ status: r.status, body: JSON.parse(JSON.stringify(r.body ?? null).replaceAll(UNKNOWN_ID, '<id>').replaceAll(unknownId('delivery'), '<id>').replace(new RegExp(Object.values(ids).join('|'), 'g'), '<id>')) })

describe('another tenant\'s ids answer exactly like unknown ids', () => {
  test('every route of the document with an id in its path is covered', async () => {
    const routes = await routesWithIds()
    expect(routes.length).toBeGreaterThanOrEqual(20)
    const kinds = new Set(routes.flatMap((r) => r.params.map((p) => idKind(r.path, p)).filter(Boolean)))
    expect([...kinds].sort()).toEqual(Object.keys(ids).sort())
  })

  for (const who of ['operator', 'user'] as const) {
    test(`as the other tenant's ${who === 'operator' ? 'tenantadmin' : 'user'}`, async () => {
      const checked: string[] = []
      for (const route of await routesWithIds()) {
        const key = `${route.method} ${route.path}`
        const call = (foreign: boolean) => f.api.call(route.method, url(route, foreign), BODIES[key] ?? (route.method === 'GET' || route.method === 'DELETE' ? undefined : {}), { token: other[who].accessToken })
        // Unknown first: a foreign DELETE that wrongly succeeded must not be hidden by a later 404.
        const unknown = await call(false)
        const foreign = await call(true)
        expect({ route: key, ...comparable(foreign) }).toEqual({ route: key, ...comparable(unknown) })
        expect(foreign.status).toBeGreaterThanOrEqual(400)
        checked.push(key)
      }
      expect(checked.length).toBeGreaterThanOrEqual(20)
    }, 30_000)
  }

  test('the same routes find the owner\'s records (the ids are real, so the 404s above mean isolation)', async () => {
    const admin = await f.adminToken()
    for (const route of await routesWithIds()) {
      if (route.method !== 'GET') continue
      const token = route.path.startsWith('/v1/admin/') || route.path.startsWith('/v1/mpc/admin/') ? admin : route.path.startsWith('/v1/users/{id}') || (route.path.startsWith('/v1/agent-payments/') && !route.path.endsWith('/wallet-consent')) ? own.operator.accessToken : own.user.accessToken
      const res = await f.api.get(url(route, true), { token })
      expect({ route: route.path, status: res.status }).toEqual({ route: route.path, status: OWNER_REFUSALS[route.path] ?? 200 })
    }
  }, 30_000)
})
