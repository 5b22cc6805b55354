/**
 * The inbox and the read marker, in process: a user reads only their own notifications,
 * newest first, in their language; paging is bounded (400 in the spec's envelope, never 500);
 * the read marker changes only the caller's. Notifications are written by the module's own
 * `notify`, as the producers write them.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { pendingPayloads } from '@/jobs/outbox'
import { notify, type NotificationKind } from '@/modules/notifications/notify'
import { PUSH_TOPIC } from '@/modules/notifications/topics'
import { makeApp, ManualClock, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { FakeFcm } from '@tests/fakes/fcm'

let t: TestApp
let f: Factory
let clock: ManualClock
let tenant: Tenant
let other: Tenant

beforeAll(async () => {
  clock = new ManualClock(Date.parse('2026-11-20T10:00:00Z'))
  t = await makeApp({ clock })
  f = new Factory(t)
  tenant = await f.tenant()
  other = await f.tenant()
})
afterAll(() => t.close())

async function give(tenantId: string, u: SignedInUser, kind: NotificationKind, data: Record<string, string | null>) {
  clock.advance(1000)
  await t.deps.database.write((tx) => notify(t.deps, tx, { tenantId, userId: u.id, kind, data }))
}
const inbox = (u: SignedInUser, query = '') => f.api.get(`/v1/notifications/inbox${query}`, { token: u.accessToken })
const read = (u: SignedInUser, body: unknown) => f.api.post('/v1/notifications/inbox/read', body, { token: u.accessToken })
const send = (id: string, amount = '1230000000000000000') => ({ transactionId: id, type: 'send', chain: 'ethereum', network: 'sepolia', amount, decimals: '18', symbol: 'ETH', toAddress: '0x742d35Cc6634C0532925a3b844Bc454e4438f44e', txHash: '0xabc', failureReason: null })

describe('GET /v1/notifications/inbox', () => {
  test('a new user has an empty inbox', async () => {
    const u = await f.user(tenant)
    const res = await inbox(u)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ notifications: [], total: 0, unread: 0 })
  })

  test('answers the caller\'s own notifications only, newest first, rendered in English by default, data as strings', async () => {
    const alice = await f.user(tenant)
    const bob = await f.user(tenant)
    const carol = await f.user(other)
    await give(tenant.id, alice, 'transaction.confirmed', send('tx-1'))
    await give(tenant.id, bob, 'transaction.confirmed', send('tx-bob'))
    await give(other.id, carol, 'transaction.confirmed', send('tx-carol'))
    await give(tenant.id, alice, 'transfer.incoming', { walletId: 'w-1', chain: 'ethereum', network: 'sepolia', amount: '2500000', decimals: '6', symbol: 'USDC', fromAddress: '0x1111111111111111111111111111111111111111', txHash: '0xdef', tokenAddress: null })
    const res = await inbox(alice)
    expect(res.status).toBe(200)
    expect(res.body.total).toBe(2)
    expect(res.body.unread).toBe(2)
    const [first, second] = res.body.notifications
    expect(first).toMatchObject({
      kind: 'transfer.incoming', title: 'Payment received', body: 'You received 2.5 USDC from 0x1111…1111 on sepolia.', readAt: null,
      data: { walletId: 'w-1', amount: '2500000', decimals: '6', symbol: 'USDC', tokenAddress: null },
    })
    expect(second).toMatchObject({ kind: 'transaction.confirmed', title: 'Transaction confirmed', body: 'Your send of 1.23 ETH to 0x742d…f44e is confirmed on sepolia.', data: { transactionId: 'tx-1' } })
    expect(first.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(Date.parse(first.createdAt)).toBeGreaterThan(Date.parse(second.createdAt))
    expect(first.createdAt).toBe(new Date(Date.parse(first.createdAt)).toISOString())
    for (const n of res.body.notifications) for (const v of Object.values(n.data)) expect(v === null || typeof v === 'string').toBe(true)
    // bob and carol see only theirs
    expect((await inbox(bob)).body.notifications.map((n: { data: { transactionId: string } }) => n.data.transactionId)).toEqual(['tx-bob'])
    expect((await inbox(carol)).body.notifications.map((n: { data: { transactionId: string } }) => n.data.transactionId)).toEqual(['tx-carol'])
  })

  test('limit (default 20, at most 100) and skip page through the newest first', async () => {
    const u = await f.user(tenant)
    for (let i = 0; i < 25; i++) await give(tenant.id, u, 'transaction.confirmed', send(`tx-${i}`))
    const ids = (r: { body: { notifications: Array<{ data: { transactionId: string } }> } }) => r.body.notifications.map((n) => n.data.transactionId)
    const first = await inbox(u)
    expect(first.body.total).toBe(25)
    expect(ids(first)).toEqual(Array.from({ length: 20 }, (_, i) => `tx-${24 - i}`))
    expect(ids(await inbox(u, '?limit=5&skip=20'))).toEqual(['tx-4', 'tx-3', 'tx-2', 'tx-1', 'tx-0'])
    expect(ids(await inbox(u, '?limit=100'))).toHaveLength(25)
    const far = await inbox(u, '?skip=1000000')
    expect(far.status).toBe(200)
    expect(far.body).toEqual({ notifications: [], total: 25, unread: 25 })
  })

  test('limit and skip out of bounds or not integers answer 400 in the schema envelope, never 500', async () => {
    const u = await f.user(tenant)
    for (const q of ['?limit=0', '?limit=101', '?limit=abc', '?limit=1.5', '?limit=-1', '?skip=-1', '?skip=1000001', '?skip=1e30', '?skip=x', '?limit=99999999999999999999']) {
      const res = await inbox(u, q)
      expect(res.status, q).toBe(400)
      expect(res.body, q).toMatchObject({ statusCode: 400, error: 'Bad Request', message: 'Request validation failed' })
      expect(res.body.details.length, q).toBeGreaterThan(0)
    }
  })

  test('without a token 401; a platform admin has no inbox (403)', async () => {
    expect((await f.api.get('/v1/notifications/inbox')).status).toBe(401)
    const admin = await f.adminToken()
    const res = await f.api.get('/v1/notifications/inbox', { token: admin })
    expect(res.status).toBe(403)
    expect(res.body).toMatchObject({ statusCode: 403 })
    expect((await f.api.post('/v1/notifications/inbox/read', {}, { token: admin })).status).toBe(403)
  })
})

describe('language', () => {
  test('the locale sent with the device token renders the whole inbox in Italian; omitted, it is kept', async () => {
    const u = await f.user(tenant)
    await give(tenant.id, u, 'transaction.failed', send('tx-it', '1000000000000000'))
    await give(tenant.id, u, 'ramp.deposit', { depositId: 'd-1', environment: 'sandbox', status: 'completed', fiatAmount: '100.5', fiatCurrency: 'EUR' })
    expect((await f.api.patch('/v1/users/me/fcm-token', { token: 'device-1', locale: 'it' }, { token: u.accessToken })).status).toBe(200)
    let res = await inbox(u)
    expect(res.body.notifications.map((n: { title: string; body: string }) => [n.title, n.body])).toEqual([
      ['Deposito completato', 'Il tuo deposito di 100,5 EUR tramite bonifico è completato.'],
      ['Transazione non riuscita', 'Il tuo invio di 0,001 ETH a 0x742d…f44e non è andato a buon fine su sepolia.'],
    ])
    // a new token without a locale keeps Italian
    expect((await f.api.patch('/v1/users/me/fcm-token', { token: 'device-2' }, { token: u.accessToken })).status).toBe(200)
    res = await inbox(u)
    expect(res.body.notifications[0].title).toBe('Deposito completato')
    expect((await f.api.patch('/v1/users/me/fcm-token', { token: null, locale: 'en' }, { token: u.accessToken })).status).toBe(200)
    expect((await inbox(u)).body.notifications[0].title).toBe('Deposit completed')
  })

  test('a locale other than en or it answers 400', async () => {
    const u = await f.user(tenant)
    for (const locale of ['fr', 'IT', '', 5]) {
      const res = await f.api.patch('/v1/users/me/fcm-token', { token: 'device-1', locale }, { token: u.accessToken })
      expect(res.status, String(locale)).toBe(400)
    }
  })

  test('card onramp statuses read in English and Italian', async () => {
    const u = await f.user(tenant)
    const statuses = ['fulfillment_processing', 'fulfillment_complete', 'failed', 'rejected']
    for (const status of statuses) await give(tenant.id, u, 'card_onramp.updated', { sessionId: `s-${status}`, status, destinationCurrency: 'USDC', destinationAmount: status === 'rejected' ? null : '25.5' })
    const texts = async () => (await inbox(u)).body.notifications.reverse().map((n: { title: string; body: string }) => `${n.title} | ${n.body}`)
    expect(await texts()).toEqual([
      'Card purchase processing | Your purchase of 25.5 USDC is being delivered to your wallet.',
      'Card purchase complete | Your purchase of 25.5 USDC arrived in your wallet.',
      'Card purchase failed | Your purchase of 25.5 USDC could not be completed.',
      'Card purchase declined | Your USDC purchase was declined.',
    ])
    await f.api.patch('/v1/users/me/fcm-token', { token: null, locale: 'it' }, { token: u.accessToken })
    expect(await texts()).toEqual([
      'Acquisto con carta in corso | Il tuo acquisto di 25,5 USDC è in consegna al tuo wallet.',
      'Acquisto con carta completato | Il tuo acquisto di 25,5 USDC è arrivato nel tuo wallet.',
      'Acquisto con carta non riuscito | Il tuo acquisto di 25,5 USDC non è stato completato.',
      'Acquisto con carta rifiutato | Il tuo acquisto di USDC è stato rifiutato.',
    ])
  })
})

describe('POST /v1/notifications/inbox/read', () => {
  test('marks the caller\'s listed notifications read; another user\'s ids change nothing', async () => {
    const alice = await f.user(tenant)
    const bob = await f.user(tenant)
    await give(tenant.id, alice, 'transaction.confirmed', send('a-1'))
    await give(tenant.id, alice, 'transaction.confirmed', send('a-2'))
    await give(tenant.id, bob, 'transaction.confirmed', send('b-1'))
    const mine = (await inbox(alice)).body.notifications as Array<{ id: string; data: { transactionId: string } }>
    const bobs = (await inbox(bob)).body.notifications as Array<{ id: string }>
    const a1 = mine.find((n) => n.data.transactionId === 'a-1')!
    const res = await read(alice, { ids: [a1.id, bobs[0]!.id, 'not-an-id'] })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ updated: 1 })
    const after = await inbox(alice)
    expect(after.body.unread).toBe(1)
    expect(after.body.notifications.find((n: { id: string }) => n.id === a1.id).readAt).toBe(new Date(clock.now()).toISOString())
    // bob's is untouched, and bob cannot mark alice's
    expect((await inbox(bob)).body).toMatchObject({ unread: 1, notifications: [{ readAt: null }] })
    expect((await read(bob, { ids: mine.map((n) => n.id) })).body).toEqual({ updated: 0 })
    expect((await inbox(alice)).body.unread).toBe(1)
    // already read: not counted again
    expect((await read(alice, { ids: [a1.id] })).body).toEqual({ updated: 0 })
  })

  test('without ids: everything of the caller created up to now, not what comes later; nobody else\'s', async () => {
    const alice = await f.user(tenant)
    const bob = await f.user(tenant)
    const carol = await f.user(other)
    await give(tenant.id, alice, 'ramp.kyc', { environment: 'sandbox', kycStatus: 'approved' })
    await give(tenant.id, alice, 'ramp.payout', { payoutId: 'p-1', environment: 'sandbox', status: 'completed', fiatAmount: '50.00', fiatCurrency: 'EUR' })
    await give(tenant.id, bob, 'ramp.kyc', { environment: 'sandbox', kycStatus: 'pending' })
    await give(other.id, carol, 'ramp.kyc', { environment: 'sandbox', kycStatus: 'pending' })
    const now = clock.now()
    // one written a minute "later" than the call below (a clock ahead in another process)
    clock.set(now + 60_000)
    await t.deps.database.write((tx) => notify(t.deps, tx, { tenantId: tenant.id, userId: alice.id, kind: 'ramp.kyc', data: { environment: 'sandbox', kycStatus: 'rejected' } }))
    clock.set(now)
    const res = await read(alice, {})
    expect(res.body).toEqual({ updated: 2 })
    const after = (await inbox(alice)).body
    expect(after.unread).toBe(1)
    expect(after.notifications.map((n: { title: string; readAt: string | null }) => [n.title, n.readAt === null])).toEqual([
      ['Verification declined', true], ['Payout completed', false], ['Verification approved', false],
    ])
    expect((await inbox(bob)).body.unread).toBe(1)
    expect((await inbox(carol)).body.unread).toBe(1)
    expect((await read(alice, { ids: [] })).body).toEqual({ updated: 0 })
    clock.set(now + 120_000)
  })

  test('bad bodies answer 400, never 500', async () => {
    const u = await f.user(tenant)
    for (const body of [{ ids: 'all' }, { ids: [5] }, { ids: [''] }, { ids: ['x'.repeat(65)] }, { ids: Array.from({ length: 101 }, (_, i) => `id-${i}`) }]) {
      const res = await read(u, body)
      expect(res.status, JSON.stringify(body).slice(0, 40)).toBe(400)
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request' })
    }
    expect((await f.api.call('POST', '/v1/notifications/inbox/read', undefined, { token: u.accessToken, raw: '[1]', headers: { 'content-type': 'application/json' } })).status).toBe(400)
  })
})

describe('notify', () => {
  test('keeps every data value as text, and refuses an object', async () => {
    const u = await f.user(tenant)
    await t.deps.database.write((tx) => notify(t.deps, tx, { tenantId: tenant.id, userId: u.id, kind: 'transaction.confirmed', data: { amount: 5 as unknown as string, big: 10n as unknown as string } }))
    expect((await inbox(u)).body.notifications[0].data).toEqual({ amount: '5', big: '10' })
    await expect(t.deps.database.write((tx) => notify(t.deps, tx, { tenantId: tenant.id, userId: u.id, kind: 'transaction.confirmed', data: { nested: {} as unknown as string } }))).rejects.toThrow(/must be a string/)
    // the failed write left nothing behind
    expect((await inbox(u)).body.total).toBe(1)
  })

  test('schedules a push job per notification only when FCM is configured', async () => {
    const u = await f.user(tenant)
    await give(tenant.id, u, 'ramp.kyc', { environment: 'sandbox', kycStatus: 'approved' })
    expect(await pendingPayloads(t.deps.database.db, PUSH_TOPIC)).toEqual([])
    const fcm = new FakeFcm().start()
    const withFcm = await makeApp({ env: { FCM_SERVICE_ACCOUNT_JSON: fcm.serviceAccountJson(), FCM_BASE_URL: fcm.url } })
    try {
      const g = new Factory(withFcm)
      const tn = await g.tenant()
      const v = await g.user(tn)
      await withFcm.deps.database.write((tx) => notify(withFcm.deps, tx, { tenantId: tn.id, userId: v.id, kind: 'ramp.kyc', data: { kycStatus: 'approved' } }))
      const payloads = await pendingPayloads(withFcm.deps.database.db, PUSH_TOPIC)
      expect(payloads).toHaveLength(1)
      expect(payloads[0]).toMatchObject({ attempt: 1 })
    } finally {
      await withFcm.close()
      fcm.stop()
    }
  })
})
