/**
 * End to end over real HTTP on 127.0.0.1: custodial sends on a local EVM node (anvil),
 * settled by the status job, notify the sender (`transaction.confirmed` or `.failed`) and a
 * recipient who is another user of the tenant (`transfer.incoming`), each in their language;
 * the fake FCM (OAuth token endpoint and messages:send, tests/fakes/fcm.ts) receives exactly
 * one push per notification of a user with a device token. Unregistered and malformed tokens
 * are dropped and not tried again; an unavailable FCM is asked again until it takes the push;
 * without FCM configured nothing is sent and nothing fails.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { parseEther } from 'viem'
import { notifications } from '@/modules/notifications/schema'
import { outbox } from '@/jobs/schema'
import { users } from '@/db/schema'
import { systemClock } from '@/lib/clock'
import { notify } from '@/modules/notifications/notify'
import { PUSH_TOPIC } from '@/modules/notifications/topics'
import { makeApp, serve, type HttpServer, type TestApp } from '@tests/helpers/app'
import { Api } from '@tests/helpers/client'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { FakeFcm } from '@tests/fakes/fcm'
import { startLocalChain, type LocalChain } from '@tests/helpers/evm-node'
import { custodialWallet, rpcProxy, waitFor } from '@tests/transactions/helpers'

let node: LocalChain
let proxy: ReturnType<typeof rpcProxy>
let fcm: FakeFcm

interface World {
  t: TestApp
  http: HttpServer
  api: Api
  f: Factory
  tenant: Tenant
}

/** An app served on 127.0.0.1 with its job runner, and a tenant whose ethereum RPC is `rpc`. */
async function world(env: Record<string, string>, rpc: string): Promise<World> {
  // a send the node does not know counts as dropped at once, and cannot be resent (no fee room): it fails fast
  const t = await makeApp({ clock: systemClock, jobs: true, env: { RPC_TIMEOUT_MS: '3000', TX_DROP_AFTER_MS: '0', TX_MAX_FEE_BUMP_PERCENT: '0', ...env } })
  const http = serve(t)
  const api = new Api(http.url)
  const f = new Factory(t, api)
  return { t, http, api, f, tenant: await f.tenant({ chains: { rpc: { ethereum: rpc } } }) }
}

let a: World
let quiet: World

beforeAll(async () => {
  node = await startLocalChain({ chainId: 1 })
  proxy = rpcProxy(node.url)
  fcm = new FakeFcm().start()
  fcm.fate('gone-device', 'unregistered').fate('garbled-device', 'malformed')
  a = await world({ FCM_SERVICE_ACCOUNT_JSON: fcm.serviceAccountJson(), FCM_BASE_URL: fcm.url }, node.url)
  quiet = await world({}, node.url)
}, 30_000)
afterAll(async () => {
  for (const w of [a, quiet]) {
    await w.http.stop()
    await w.t.close()
  }
  fcm.stop()
  proxy.stop()
  await node.stop()
})

async function person(w: World, device: string | null, locale?: 'en' | 'it', tenant = w.tenant) {
  const u = await w.f.user(tenant)
  if (device !== null || locale) expect((await w.api.patch('/v1/users/me/fcm-token', { token: device, ...(locale ? { locale } : {}) }, { token: u.accessToken })).status).toBe(200)
  return u
}
const inbox = (w: World, u: SignedInUser) => w.api.get('/v1/notifications/inbox', { token: u.accessToken })
const settled = (w: World, u: SignedInUser, id: string) => waitFor(() => w.api.get(`/v1/transactions/${id}`, { token: u.accessToken }), (r) => r.body?.status !== 'pending')

async function sendTo(w: World, from: SignedInUser, to: string, wei: bigint) {
  const wallet = await custodialWallet(w.api, from)
  await node.sendNative(wallet.address, parseEther('2'))
  const res = await w.api.post('/v1/transactions/', { walletId: wallet.id, chain: 'ethereum', toAddress: to, amount: wei.toString() }, { token: from.accessToken })
  expect(res.status).toBe(201)
  return { wallet, id: res.body.id as string, txHash: res.body.txHash as string }
}

describe('a custodial send between two users of one tenant', () => {
  test('confirms, and the sender gets transaction.confirmed in English, the recipient transfer.incoming in Italian, one push each', async () => {
    const alice = await person(a, 'alice-device', 'en')
    const bob = await person(a, 'bob-device', 'it')
    const bobWallet = await custodialWallet(a.api, bob)
    const sent = await sendTo(a, alice, bobWallet.address, 1_230_000_000_000_000_000n)
    expect((await settled(a, alice, sent.id)).body.status).toBe('confirmed')

    const mine = (await waitFor(() => inbox(a, alice), (r) => r.body.total >= 1)).body
    expect(mine.total).toBe(1)
    const confirmed = mine.notifications[0]
    expect(confirmed).toMatchObject({
      kind: 'transaction.confirmed', title: 'Transaction confirmed', readAt: null,
      data: { transactionId: sent.id, type: 'send', chain: 'ethereum', network: 'ethereum', txHash: sent.txHash, amount: '1230000000000000000', decimals: '18', symbol: 'ETH', tokenAddress: null, toAddress: bobWallet.address, failureReason: null },
    })
    expect(confirmed.body).toBe(`Your send of 1.23 ETH to ${bobWallet.address.slice(0, 6)}…${bobWallet.address.slice(-4)} is confirmed on ethereum.`)
    const theirs = (await inbox(a, bob)).body
    expect(theirs.total).toBe(1)
    expect(theirs.notifications[0]).toMatchObject({
      kind: 'transfer.incoming', title: 'Pagamento ricevuto',
      data: { walletId: bobWallet.id, chain: 'ethereum', txHash: sent.txHash, amount: '1230000000000000000', decimals: '18', symbol: 'ETH', fromAddress: sent.wallet.address },
    })
    expect(theirs.notifications[0].body).toBe(`Hai ricevuto 1,23 ETH da ${sent.wallet.address.slice(0, 6)}…${sent.wallet.address.slice(-4)} su ethereum.`)
    // the sender's data names no other user's ids
    expect(theirs.notifications[0].data.transactionId).toBeUndefined()

    await waitFor(async () => fcm.deliveredTo('alice-device').length + fcm.deliveredTo('bob-device').length, (n) => n >= 2)
    // reading the status again as blocks are mined (its confirmations change) settles nothing again: no second notification, no second push
    for (let i = 0; i < 3; i++) {
      await node.sendNative('0x000000000000000000000000000000000000dEaD', 1n)
      const st = await a.api.get(`/v1/transactions/${sent.id}/status`, { token: alice.accessToken })
      expect(st.body).toMatchObject({ status: 'confirmed', confirmations: i + 2 })
    }
    await Bun.sleep(1500)
    expect((await inbox(a, alice)).body.total).toBe(1)
    const [toAlice] = fcm.deliveredTo('alice-device')
    const [toBob] = fcm.deliveredTo('bob-device')
    expect(fcm.deliveredTo('alice-device')).toHaveLength(1)
    expect(fcm.deliveredTo('bob-device')).toHaveLength(1)
    expect(toAlice!.notification).toEqual({ title: confirmed.title, body: confirmed.body })
    expect(toAlice!.data).toMatchObject({ notificationId: confirmed.id, kind: 'transaction.confirmed', transactionId: sent.id, amount: '1230000000000000000' })
    expect(toAlice!.data.failureReason).toBeUndefined()
    expect(toBob!.notification).toEqual({ title: 'Pagamento ricevuto', body: theirs.notifications[0].body })
    expect(toBob!.data).toMatchObject({ notificationId: theirs.notifications[0].id, kind: 'transfer.incoming' })
    // the pushes were authorised by a token from the key's token_uri (the fake checks the JWT)
    expect(fcm.tokenRequests.some((r) => r.status === 200 && r.claims?.iss === fcm.clientEmail)).toBe(true)
    const pushed = await a.t.deps.database.db.select().from(notifications).where(eq(notifications.id, confirmed.id)).get()
    expect(pushed!.pushedAt).toBeNumber()
  }, 60_000)

  test('a send the network never mines fails, and the sender is told once; a recipient of another tenant is not', async () => {
    const dave = await person(a, 'dave-device', 'it')
    const outsider = await person(a, 'outsider-device', 'en', await a.f.tenant({ chains: { rpc: { ethereum: node.url } } }))
    const outsiderWallet = await custodialWallet(a.api, outsider)
    const viaProxy = await a.f.tenant({ chains: { rpc: { ethereum: proxy.url } } })
    const erin = await person(a, 'erin-device', 'it', viaProxy)
    const erinWallet = await custodialWallet(a.api, erin)
    await node.sendNative(erinWallet.address, parseEther('1'))
    proxy.state.onSend = () => 'swallow'
    try {
      const res = await a.api.post('/v1/transactions/', { walletId: erinWallet.id, chain: 'ethereum', toAddress: outsiderWallet.address, amount: '1000' }, { token: erin.accessToken })
      expect(res.status).toBe(201)
      expect((await settled(a, erin, res.body.id)).body.status).toBe('failed')
      const mine = (await waitFor(() => inbox(a, erin), (r) => r.body.total >= 1)).body
      expect(mine.total).toBe(1)
      expect(mine.notifications[0]).toMatchObject({ kind: 'transaction.failed', title: 'Transazione non riuscita', data: { transactionId: res.body.id } })
      expect(mine.notifications[0].data.failureReason).toContain('dropped')
      await waitFor(async () => fcm.deliveredTo('erin-device').length, (n) => n >= 1)
      expect(fcm.deliveredTo('erin-device')[0]!.notification.title).toBe('Transazione non riuscita')
    } finally {
      proxy.state.onSend = () => 'forward'
    }
    // a confirmed send to another tenant's wallet tells only the sender
    const sent = await sendTo(a, dave, outsiderWallet.address, 5n)
    expect((await settled(a, dave, sent.id)).body.status).toBe('confirmed')
    await waitFor(async () => fcm.deliveredTo('dave-device').length, (n) => n >= 1)
    await Bun.sleep(500)
    expect((await inbox(a, outsider)).body.total).toBe(0)
    expect(fcm.deliveredTo('outsider-device')).toHaveLength(0)
  }, 60_000)
})

describe('device tokens FCM refuses', () => {
  test('an unregistered token and a malformed one are dropped from the user and not tried again; the inbox keeps the notification', async () => {
    const sender = await person(a, null)
    const gone = await person(a, 'gone-device', 'en')
    const garbled = await person(a, 'garbled-device', 'en')
    for (const u of [gone, garbled]) {
      const w = await custodialWallet(a.api, u)
      const sent = await sendTo(a, sender, w.address, 7n)
      expect((await settled(a, sender, sent.id)).body.status).toBe('confirmed')
    }
    const tokenOf = async (u: SignedInUser) => (await a.t.deps.database.db.select({ fcmToken: users.fcmToken }).from(users).where(eq(users.id, u.id)).get())!.fcmToken
    await waitFor(async () => [await tokenOf(gone), await tokenOf(garbled)], (v) => v.every((x) => x === null))
    expect(await tokenOf(gone)).toBeNull()
    expect(await tokenOf(garbled)).toBeNull()
    await Bun.sleep(1500)
    expect(fcm.attempts.filter((x) => x.token === 'gone-device').map((x) => x.status)).toEqual([404])
    expect(fcm.attempts.filter((x) => x.token === 'garbled-device').map((x) => x.status)).toEqual([400])
    expect((await inbox(a, gone)).body.notifications[0]).toMatchObject({ kind: 'transfer.incoming', readAt: null })
    // the sender registered no device: nothing was pushed for them, and their inbox still filled
    expect((await inbox(a, sender)).body.total).toBe(2)
  }, 60_000)

  test('a token registered again while FCM answers about the old one is kept', async () => {
    const u = await person(a, 'stale-device', 'en')
    fcm.fate('stale-device', 'unregistered')
    const held = fcm.pause('stale-device')
    await a.t.deps.database.write((tx) => notify(a.t.deps, tx, { tenantId: a.tenant.id, userId: u.id, kind: 'ramp.kyc', data: { environment: 'sandbox', kycStatus: 'approved' } }))
    await held.arrived
    // the device registers a new token while FCM has not yet answered about the old one
    expect((await a.api.patch('/v1/users/me/fcm-token', { token: 'fresh-device' }, { token: u.accessToken })).status).toBe(200)
    held.release()
    await waitFor(async () => fcm.attempts.filter((x) => x.token === 'stale-device').length, (n) => n >= 1)
    await Bun.sleep(500)
    expect(fcm.attempts.filter((x) => x.token === 'stale-device').map((x) => x.status)).toEqual([404])
    expect((await a.t.deps.database.db.select({ fcmToken: users.fcmToken }).from(users).where(eq(users.id, u.id)).get())!.fcmToken).toBe('fresh-device')
  }, 30_000)
})

describe('one device token, one user', () => {
  test('a token registered by users of two tenants, then by a second user of the same tenant, belongs to the last; only they get its pushes', async () => {
    const other = await a.f.tenant({ chains: { rpc: { ethereum: node.url } } })
    const first = await person(a, 'shared-device', 'en')
    const second = await person(a, 'shared-device', 'it', other)
    const third = await person(a, 'shared-device', 'en', other)
    const holders = async () => (await a.t.deps.database.db.select({ id: users.id }).from(users).where(eq(users.fcmToken, 'shared-device')).all()).map((r) => r.id)
    expect(await holders()).toEqual([third.id])
    for (const [u, tenantId] of [[first, a.tenant.id], [second, other.id], [third, other.id]] as const) {
      await a.t.deps.database.write((tx) => notify(a.t.deps, tx, { tenantId, userId: u.id, kind: 'ramp.kyc', data: { environment: 'sandbox', kycStatus: 'approved' } }))
    }
    await waitFor(async () => fcm.deliveredTo('shared-device').length, (n) => n >= 1)
    await Bun.sleep(1500)
    const delivered = fcm.deliveredTo('shared-device')
    expect(delivered).toHaveLength(1)
    expect(delivered[0]!.notification.title).toBe((await inbox(a, third)).body.notifications[0].title)
    // registered again by the first user, it moves back across the tenants
    expect((await a.api.patch('/v1/users/me/fcm-token', { token: 'shared-device' }, { token: first.accessToken })).status).toBe(200)
    expect(await holders()).toEqual([first.id])
    // registering the token one already holds changes nothing
    expect((await a.api.patch('/v1/users/me/fcm-token', { token: 'shared-device' }, { token: first.accessToken })).status).toBe(200)
    expect(await holders()).toEqual([first.id])
  }, 30_000)
})

describe('FCM unavailable', () => {
  test('503 and 429 are asked again later, and the push is delivered once', async () => {
    const u = await person(a, 'flaky-device', 'en')
    fcm.fate('flaky-device', { status: 503, times: 1 })
    await a.t.deps.database.write((tx) => notify(a.t.deps, tx, { tenantId: a.tenant.id, userId: u.id, kind: 'ramp.payout', data: { payoutId: 'p-1', environment: 'sandbox', status: 'completed', fiatAmount: '50.00', fiatCurrency: 'EUR' } }))
    await waitFor(async () => fcm.attempts.filter((x) => x.token === 'flaky-device').length, (n) => n >= 1)
    fcm.fate('flaky-device', { status: 429, times: 1, retryAfter: '1' })
    await waitFor(async () => fcm.deliveredTo('flaky-device').length, (n) => n >= 1, 30_000)
    expect(fcm.attempts.filter((x) => x.token === 'flaky-device').map((x) => x.status)).toEqual([503, 429, 200])
    expect(fcm.deliveredTo('flaky-device')).toHaveLength(1)
    expect(fcm.deliveredTo('flaky-device')[0]!.notification).toEqual({ title: 'Payout completed', body: 'Your payout of 50.00 EUR was sent to your bank.' })
    const jobs = await a.t.deps.database.db.select({ id: outbox.id }).from(outbox).where(eq(outbox.topic, PUSH_TOPIC)).all()
    expect(jobs.filter((j) => j.id.startsWith('push:')).length).toBeGreaterThanOrEqual(3)
  }, 40_000)
})

describe('other answers', () => {
  test('a refusal that is not about the token (403) is not tried again and keeps the token', async () => {
    const u = await person(a, 'other-project-device', 'en')
    fcm.fate('other-project-device', { status: 403, times: 5 })
    await a.t.deps.database.write((tx) => notify(a.t.deps, tx, { tenantId: a.tenant.id, userId: u.id, kind: 'ramp.kyc', data: { environment: 'sandbox', kycStatus: 'approved' } }))
    await waitFor(async () => fcm.attempts.filter((x) => x.token === 'other-project-device').length, (n) => n >= 1)
    await Bun.sleep(2500)
    expect(fcm.attempts.filter((x) => x.token === 'other-project-device').map((x) => x.status)).toEqual([403])
    expect((await a.t.deps.database.db.select({ fcmToken: users.fcmToken }).from(users).where(eq(users.id, u.id)).get())!.fcmToken).toBe('other-project-device')
    expect(a.t.logs.some((l) => l.includes('push refused by FCM'))).toBe(true)
  }, 20_000)

  test('an access token FCM stops taking (401) is replaced by a new one from the token endpoint, and the push goes through', async () => {
    const u = await person(a, 'revoked-device', 'en')
    const grants = fcm.tokenRequests.filter((r) => r.status === 200).length
    fcm.revokeAccessTokens()
    await a.t.deps.database.write((tx) => notify(a.t.deps, tx, { tenantId: a.tenant.id, userId: u.id, kind: 'ramp.kyc', data: { environment: 'sandbox', kycStatus: 'approved' } }))
    await waitFor(async () => fcm.deliveredTo('revoked-device').length, (n) => n >= 1, 15_000)
    expect(fcm.attempts.filter((x) => x.token === 'revoked-device').map((x) => x.status)).toEqual([401, 200])
    expect(fcm.tokenRequests.filter((r) => r.status === 200).length).toBe(grants + 1)
  }, 20_000)
})

describe('never logged', () => {
  test('no log line holds a device token, the service account key or an access token', () => {
    const text = a.t.logs.join('\n')
    for (const secret of ['alice-device', 'bob-device', 'gone-device', 'garbled-device', 'flaky-device', 'other-project-device', 'revoked-device', 'ya29.fake-', 'PRIVATE KEY', fcm.privateKeyPem.split('\n')[1]!]) expect(text).not.toContain(secret)
    expect(text).toContain('push sent')
    expect(text).toContain('push token dropped')
  })
})

describe('without FCM configured', () => {
  test('the inbox fills, nothing is sent, no job is scheduled, nothing fails', async () => {
    const before = fcm.attempts.length
    const alice = await person(quiet, 'quiet-alice', 'en')
    const bob = await person(quiet, 'quiet-bob', 'it')
    const bobWallet = await custodialWallet(quiet.api, bob)
    const sent = await sendTo(quiet, alice, bobWallet.address, 11n)
    expect((await settled(quiet, alice, sent.id)).body.status).toBe('confirmed')
    await waitFor(() => inbox(quiet, bob), (r) => r.body.total >= 1)
    expect((await inbox(quiet, alice)).body.notifications.map((n: { kind: string }) => n.kind)).toEqual(['transaction.confirmed'])
    expect((await inbox(quiet, bob)).body.notifications.map((n: { kind: string; title: string }) => [n.kind, n.title])).toEqual([['transfer.incoming', 'Pagamento ricevuto']])
    await Bun.sleep(500)
    expect(fcm.attempts.length).toBe(before)
    expect(await quiet.t.deps.database.db.select().from(outbox).where(eq(outbox.topic, PUSH_TOPIC)).all()).toEqual([])
    expect(quiet.t.logs.filter((l) => /"level":"(warn|error)"/.test(l) && /push|notif/i.test(l))).toEqual([])
  }, 60_000)
})
