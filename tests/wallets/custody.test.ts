import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { ed25519, x25519 } from '@noble/curves/ed25519'
import { base58, base64 } from '@scure/base'
import { Keypair } from '@solana/web3.js'
import { eq } from 'drizzle-orm'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { wallets } from '@/modules/wallets/schema'
import { RateLimiter } from '@/http/rate-limit'
import { makeApp, ManualClock, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { openEnvelope } from '@tests/wallets/envelope'

let t: TestApp
let f: Factory
let tenant: Tenant

beforeAll(async () => {
  t = await makeApp()
  f = new Factory(t)
  tenant = await f.tenant({ walletMode: 'non_custodial' })
})
afterAll(() => t.close())
beforeEach(() => {
  t.deps.rateLimiter = new RateLimiter(t.clock)
})

const signSolana = (kp: Keypair, message: string) => base58.encode(ed25519.sign(new TextEncoder().encode(message), kp.secretKey.slice(0, 32)))

async function challenge(u: SignedInUser, chain: string, address: string) {
  const res = await f.api.get(`/v1/wallets/client/challenge?chain=${chain}&address=${address}`, { token: u.accessToken })
  expect(res.status).toBe(200)
  return res.body as { challengeId: string; message: string; expiresAt: string }
}

describe('non-custodial registration', () => {
  test('EVM: an EIP-191 signature over the challenge registers the address as client_side', async () => {
    const u = await f.user(tenant)
    const account = privateKeyToAccount(generatePrivateKey())
    const c = await challenge(u, 'ethereum', account.address.toLowerCase())
    expect(c.message).toContain(account.address)
    const signature = await account.signMessage({ message: c.message })
    const res = await f.api.post('/v1/wallets/client', { challengeId: c.challengeId, signature, name: 'Ledger', isPrimary: true }, { token: u.accessToken })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ chain: 'ethereum', address: account.address, walletType: 'client', keyManagementScheme: 'client_side', isPrimary: true, label: 'Ledger', isTestnet: false })
    const row = await t.deps.database.db.select().from(wallets).where(eq(wallets.id, res.body.id)).get()
    expect(row!.keySealed).toBeNull()
    // single use
    const replay = await f.api.post('/v1/wallets/client', { challengeId: c.challengeId, signature }, { token: u.accessToken })
    expect(replay.status).toBe(400)
  })

  test('Solana: an ed25519 signature (base58 or base64) registers the address; testnet ids work', async () => {
    const u = await f.user(tenant)
    const kp = Keypair.generate()
    const c = await challenge(u, 'solana-devnet', kp.publicKey.toBase58())
    const res = await f.api.post('/v1/wallets/client', { challengeId: c.challengeId, signature: signSolana(kp, c.message) }, { token: u.accessToken })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ chain: 'solana', isTestnet: true, address: kp.publicKey.toBase58() })
    const kp2 = Keypair.generate()
    const c2 = await challenge(u, 'solana', kp2.publicKey.toBase58())
    const sig64 = base64.encode(ed25519.sign(new TextEncoder().encode(c2.message), kp2.secretKey.slice(0, 32)))
    expect((await f.api.post('/v1/wallets/client', { challengeId: c2.challengeId, signature: sig64 }, { token: u.accessToken })).status).toBe(201)
  })

  test('a signature by another key, a malformed signature or an expired challenge answer 400', async () => {
    const u = await f.user(tenant)
    const account = privateKeyToAccount(generatePrivateKey())
    const intruder = privateKeyToAccount(generatePrivateKey())
    const c = await challenge(u, 'polygon', account.address)
    expect((await f.api.post('/v1/wallets/client', { challengeId: c.challengeId, signature: await intruder.signMessage({ message: c.message }) }, { token: u.accessToken })).status).toBe(400)
    expect((await f.api.post('/v1/wallets/client', { challengeId: c.challengeId, signature: '0x1234' }, { token: u.accessToken })).status).toBe(400)
    ;(t.clock as ManualClock).advance(5 * 60 * 1000 + 1)
    const late = await f.api.post('/v1/wallets/client', { challengeId: c.challengeId, signature: await account.signMessage({ message: c.message }) }, { token: u.accessToken })
    expect(late.status).toBe(400)
    expect(late.body.message).toContain('expired')
  })

  test('another user cannot use someone\'s challenge; bad chain or address answer 400', async () => {
    const u = await f.user(tenant)
    const v = await f.user(tenant)
    const account = privateKeyToAccount(generatePrivateKey())
    const c = await challenge(u, 'base', account.address)
    expect((await f.api.post('/v1/wallets/client', { challengeId: c.challengeId, signature: await account.signMessage({ message: c.message }) }, { token: v.accessToken })).status).toBe(400)
    expect((await f.api.get('/v1/wallets/client/challenge?chain=base&address=0x123', { token: u.accessToken })).status).toBe(400)
    expect((await f.api.get(`/v1/wallets/client/challenge?chain=nowhere&address=${account.address}`, { token: u.accessToken })).status).toBe(400)
  })

  test('MPC tenants cannot register client wallets', async () => {
    const mpc = await f.tenant({ walletMode: 'mpc' })
    const u = await f.user(mpc)
    const account = privateKeyToAccount(generatePrivateKey())
    expect((await f.api.get(`/v1/wallets/client/challenge?chain=ethereum&address=${account.address}`, { token: u.accessToken })).status).toBe(400)
  })
})

describe('migration to client custody', () => {
  let custodial: Tenant
  beforeAll(async () => {
    custodial = await f.tenant()
  })

  async function setup() {
    const u = await f.user(custodial)
    const w = (await f.api.post('/v1/wallets/', { chain: 'ethereum' }, { token: u.accessToken })).body
    const devicePriv = x25519.utils.randomPrivateKey()
    const publicKey = Buffer.from(x25519.getPublicKey(devicePriv)).toString('base64')
    const wrong = await f.api.post('/v1/wallets/register-device', { publicKey, name: 'phone', password: 'Not-the-passw0rd' }, { token: u.accessToken })
    expect(wrong.status).toBe(422)
    const dev = await f.api.post('/v1/wallets/register-device', { publicKey, name: 'phone', password: u.password }, { token: u.accessToken })
    expect(dev.status).toBe(201)
    return { u, w, devicePriv, deviceId: dev.body.deviceId as string }
  }

  test('hands the key over once to the device, then erases the service\'s copy on a signed confirmation', async () => {
    const { u, w, devicePriv, deviceId } = await setup()
    const mc = await f.api.get(`/v1/wallets/migration-challenge?walletId=${w.id}&deviceId=${deviceId}`, { token: u.accessToken })
    expect(mc.status).toBe(200)
    const key = openEnvelope(devicePriv, mc.body.envelope) as `0x${string}`
    const account = privateKeyToAccount(key)
    expect(account.address).toBe(w.address)
    expect((await f.api.get(`/v1/wallets/${w.id}`, { token: u.accessToken })).body.keyManagementScheme).toBe('client_side_pending')
    // no second hand-over while pending
    expect((await f.api.get(`/v1/wallets/migration-challenge?walletId=${w.id}&deviceId=${deviceId}`, { token: u.accessToken })).status).toBe(409)
    const wrong = privateKeyToAccount(generatePrivateKey())
    expect((await f.api.post('/v1/wallets/confirm-client-custody', { walletId: w.id, challengeId: mc.body.challengeId, signature: await wrong.signMessage({ message: mc.body.message }) }, { token: u.accessToken })).status).toBe(400)
    const ok = await f.api.post('/v1/wallets/confirm-client-custody', { walletId: w.id, challengeId: mc.body.challengeId, signature: await account.signMessage({ message: mc.body.message }) }, { token: u.accessToken })
    expect(ok.status).toBe(200)
    expect(ok.body.keyManagementScheme).toBe('client_side')
    const row = await t.deps.database.db.select().from(wallets).where(eq(wallets.id, w.id)).get()
    expect(row!.keySealed).toBeNull()
    expect(row!.dataKeyWrapped).toBeNull()
    // nothing left to export
    const tok = await f.api.post('/v1/wallets/request-export-token', { walletId: w.id, password: u.password }, { token: u.accessToken })
    expect(tok.status).toBe(400)
  })

  test('cancel-migration returns the wallet to aes_single and voids the challenge', async () => {
    const { u, w, deviceId } = await setup()
    const mc = (await f.api.get(`/v1/wallets/migration-challenge?walletId=${w.id}&deviceId=${deviceId}`, { token: u.accessToken })).body
    const res = await f.api.post('/v1/wallets/cancel-migration', { walletId: w.id }, { token: u.accessToken })
    expect(res.status).toBe(200)
    expect(res.body.keyManagementScheme).toBe('aes_single')
    expect((await f.api.post('/v1/wallets/cancel-migration', { walletId: w.id }, { token: u.accessToken })).status).toBe(400)
    const confirm = await f.api.post('/v1/wallets/confirm-client-custody', { walletId: w.id, challengeId: mc.challengeId, signature: '0x00' }, { token: u.accessToken })
    expect(confirm.status).toBe(400)
    const row = await t.deps.database.db.select().from(wallets).where(eq(wallets.id, w.id)).get()
    expect(row!.keySealed).not.toBeNull()
  })

  test('another user\'s device answers 404; a bad device key 400', async () => {
    const a = await setup()
    const b = await setup()
    expect((await f.api.get(`/v1/wallets/migration-challenge?walletId=${a.w.id}&deviceId=${b.deviceId}`, { token: a.u.accessToken })).status).toBe(404)
    expect((await f.api.post('/v1/wallets/register-device', { publicKey: 'short', password: a.u.password }, { token: a.u.accessToken })).status).toBe(400)
  })
})
