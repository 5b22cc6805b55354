import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { x25519 } from '@noble/curves/ed25519'
import { eq } from 'drizzle-orm'
import { privateKeyToAccount } from 'viem/accounts'
import { Keypair } from '@solana/web3.js'
import { base58 } from '@scure/base'
import { wallets } from '@/modules/wallets/schema'
import { RateLimiter } from '@/http/rate-limit'
import { makeApp, ManualClock, type TestApp } from '@tests/helpers/app'
import { Factory, unique, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { openEnvelope } from '@tests/wallets/envelope'

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const HARDHAT_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'

let t: TestApp
let f: Factory
let tenant: Tenant
let alice: SignedInUser
/** every private key a test saw in clear, checked against the logs at the end */
const seenSecrets: string[] = [HARDHAT_KEY.slice(2)]

beforeAll(async () => {
  t = await makeApp()
  f = new Factory(t)
  tenant = await f.tenant()
  alice = await f.user(tenant)
})
afterAll(() => t.close())
// Many registrations from one test IP: each test starts with fresh per-IP counters.
beforeEach(() => {
  t.deps.rateLimiter = new RateLimiter(t.clock)
})

const create = (u: SignedInUser, body: Record<string, unknown>) => f.api.post('/v1/wallets/', body, { token: u.accessToken })

describe('POST /v1/wallets/', () => {
  test('creates a custodial EVM wallet and answers 201 with the spec\'s fields', async () => {
    const res = await create(alice, { chain: 'ethereum', name: 'Main' })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ chain: 'ethereum', label: 'Main', walletType: 'managed', isPrimary: false, isWatchOnly: false, isTestnet: false, keyManagementScheme: 'aes_single' })
    expect(res.body.address).toMatch(/^0x[0-9a-fA-F]{40}$/)
    // one name per field: `createdAt`, never `created_at` as well
    expect(res.body.createdAt).toBeString()
    expect(res.body).not.toHaveProperty('created_at')
    expect(JSON.stringify(res.body)).not.toMatch(/sealed|privateKey|dataKey/i)
  })

  test('a testnet registry id is stored under the family chain with isTestnet: true', async () => {
    const res = await create(alice, { chain: 'sepolia' })
    expect(res.status).toBe(201)
    expect(res.body.chain).toBe('ethereum')
    expect(res.body.isTestnet).toBe(true)
    const sol = await create(alice, { chain: 'solana-devnet' })
    expect(sol.status).toBe(201)
    expect(sol.body).toMatchObject({ chain: 'solana', isTestnet: true })
  })

  test('creates a Solana wallet with a base58 address', async () => {
    const res = await create(alice, { chain: 'solana', isTestnet: false })
    expect(res.status).toBe(201)
    expect(res.body.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)
  })

  test('an unsupported chain answers 400 in the envelope with `detail`', async () => {
    const res = await create(alice, { chain: 'dogecoin' })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ detail: 'Unsupported chain: dogecoin' })
  })

  test('a chain not enabled for the tenant answers 400 in the envelope with `detail`', async () => {
    const narrow = await f.tenant({ chains: { enabled: ['solana'] } })
    const u = await f.user(narrow)
    expect((await create(u, { chain: 'ethereum' })).status).toBe(400)
    expect((await create(u, { chain: 'solana' })).status).toBe(201)
  })

  test('a schema failure answers 400 in the envelope, with `detail`', async () => {
    const res = await create(alice, { chain: 1 })
    expect(res.status).toBe(400)
    expect(typeof res.body.detail).toBe('string')
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', message: 'Request validation failed', detail: expect.any(String) })
  })

  test('a second primary for the same chain and network answers 409 PRIMARY_WALLET_EXISTS; another network is fine', async () => {
    const u = await f.user(tenant)
    expect((await create(u, { chain: 'base', isPrimary: true })).status).toBe(201)
    const dup = await create(u, { chain: 'base', isPrimary: true })
    expect(dup.status).toBe(409)
    expect(dup.body.code).toBe('PRIMARY_WALLET_EXISTS')
    expect(typeof dup.body.detail).toBe('string')
    expect((await create(u, { chain: 'base-sepolia', isPrimary: true })).status).toBe(201)
    expect((await create(u, { chain: 'base' })).status).toBe(201)
  })

  test('tenants in mpc or non-custodial mode answer 400 in the envelope with `detail`', async () => {
    for (const walletMode of ['mpc', 'non_custodial']) {
      const other = await f.tenant({ walletMode })
      const u = await f.user(other)
      const res = await create(u, { chain: 'ethereum' })
      expect(res.status).toBe(400)
      expect(res.body.detail).toContain(walletMode === 'mpc' ? 'MPC' : 'non-custodial')
    }
  })

  test('platform admins have no wallets (403)', async () => {
    const res = await f.api.post('/v1/wallets/', { chain: 'ethereum' }, { token: await f.adminToken() })
    expect(res.status).toBe(403)
    expect(typeof res.body.detail).toBe('string')
  })

  test('without a bearer token answers 401', async () => {
    const res = await f.api.post('/v1/wallets/', { chain: 'ethereum' })
    expect(res.status).toBe(401)
  })

  test('the key is stored sealed (data key wrapped, key version kept), never in clear', async () => {
    const res = await create(alice, { chain: 'polygon' })
    const row = await t.deps.database.db.select().from(wallets).where(eq(wallets.id, res.body.id)).get()
    expect(row!.dataKeyWrapped).toMatch(/^v1\./)
    expect(row!.keySealed).toMatch(/^v1\./)
    expect(row!.keyVersion).toBe(1)
  })
})

describe('list, read, delete', () => {
  test('lists one\'s wallets with the spec\'s pagination', async () => {
    const u = await f.user(tenant)
    for (const chain of ['ethereum', 'polygon', 'arbitrum']) expect((await create(u, { chain })).status).toBe(201)
    const first = await f.api.get('/v1/wallets/?limit=2', { token: u.accessToken })
    expect(first.status).toBe(200)
    expect(first.body.data.map((w: { chain: string }) => w.chain)).toEqual(['ethereum', 'polygon'])
    expect(first.body.pagination).toEqual({ total: 3, limit: 2, offset: 0, hasMore: true })
    const second = await f.api.get('/v1/wallets/?limit=2&offset=2', { token: u.accessToken })
    expect(second.body.pagination).toEqual({ total: 3, limit: 2, offset: 2, hasMore: false })
    expect((await f.api.get('/v1/wallets/?limit=101', { token: u.accessToken })).status).toBe(400)
    const filtered = await f.api.get('/v1/wallets/?chain=polygon', { token: u.accessToken })
    expect(filtered.body.data).toHaveLength(1)
  })

  test('reads a wallet; another user\'s wallet and a malformed id answer 404', async () => {
    const w = (await create(alice, { chain: 'optimism' })).body
    expect((await f.api.get(`/v1/wallets/${w.id}`, { token: alice.accessToken })).body.id).toBe(w.id)
    const bob = await f.user(tenant)
    expect((await f.api.get(`/v1/wallets/${w.id}`, { token: bob.accessToken })).status).toBe(404)
    expect((await f.api.get('/v1/wallets/not-a-uuid', { token: alice.accessToken })).status).toBe(404)
  })

  test('deletes a wallet and erases its key; the primary wallet cannot be deleted', async () => {
    const u = await f.user(tenant)
    const primary = (await create(u, { chain: 'gnosis', isPrimary: true })).body
    const other = (await create(u, { chain: 'gnosis' })).body
    const refused = await f.api.delete(`/v1/wallets/${primary.id}`, { token: u.accessToken })
    expect(refused.status).toBe(400)
    expect(refused.body.message).toContain('primary')
    expect((await f.api.delete(`/v1/wallets/${other.id}`, { token: u.accessToken })).status).toBe(204)
    expect((await f.api.get(`/v1/wallets/${other.id}`, { token: u.accessToken })).status).toBe(404)
    const row = await t.deps.database.db.select().from(wallets).where(eq(wallets.id, other.id)).get()
    expect(row!.keySealed).toBeNull()
    expect(row!.dataKeyWrapped).toBeNull()
    expect((await f.api.delete(`/v1/wallets/${other.id}`, { token: u.accessToken })).status).toBe(404)
  })
})

describe('primary wallet', () => {
  test('set-primary demotes the previous primary of the same chain and network', async () => {
    const u = await f.user(tenant)
    const a = (await create(u, { chain: 'celo', isPrimary: true })).body
    const b = (await create(u, { chain: 'celo' })).body
    const testnet = (await create(u, { chain: 'celo-alfajores', isPrimary: true })).body
    const res = await f.api.patch(`/v1/wallets/${b.id}/set-primary`, undefined, { token: u.accessToken })
    expect(res.status).toBe(200)
    expect(res.body.isPrimary).toBe(true)
    expect((await f.api.get(`/v1/wallets/${a.id}`, { token: u.accessToken })).body.isPrimary).toBe(false)
    expect((await f.api.get(`/v1/wallets/${testnet.id}`, { token: u.accessToken })).body.isPrimary).toBe(true)
  })

  test('PATCH .../primary sets or unsets', async () => {
    const u = await f.user(tenant)
    const a = (await create(u, { chain: 'avalanche' })).body
    expect((await f.api.patch(`/v1/wallets/${a.id}/primary`, { isPrimary: true }, { token: u.accessToken })).body.isPrimary).toBe(true)
    expect((await f.api.patch(`/v1/wallets/${a.id}/primary`, { isPrimary: false }, { token: u.accessToken })).body.isPrimary).toBe(false)
    expect((await f.api.patch(`/v1/wallets/${a.id}/primary`, undefined, { token: u.accessToken })).body.isPrimary).toBe(true)
  })

  test('concurrent set-primary calls end with exactly one primary', async () => {
    const u = await f.user(tenant)
    const ids: string[] = []
    for (let i = 0; i < 6; i++) ids.push((await create(u, { chain: 'bsc' })).body.id)
    const results = await Promise.all(ids.map((id) => f.api.patch(`/v1/wallets/${id}/set-primary`, undefined, { token: u.accessToken })))
    expect(results.every((r) => r.status === 200)).toBe(true)
    const list = await f.api.get('/v1/wallets/?chain=bsc', { token: u.accessToken })
    expect(list.body.data.filter((w: { isPrimary: boolean }) => w.isPrimary)).toHaveLength(1)
  })

  test('another user\'s wallet cannot be made primary (404)', async () => {
    const w = (await create(alice, { chain: 'flowevm' })).body
    const bob = await f.user(tenant)
    expect((await f.api.patch(`/v1/wallets/${w.id}/set-primary`, undefined, { token: bob.accessToken })).status).toBe(404)
  })
})

describe('POST /v1/wallets/import', () => {
  test('a known mnemonic gives its known EVM and Solana addresses; accountIndex picks the account', async () => {
    const u = await f.user(tenant)
    const evm = await f.api.post('/v1/wallets/import', { chain: 'ethereum', mnemonic: ABANDON }, { token: u.accessToken })
    expect(evm.status).toBe(201)
    expect(evm.body).toMatchObject({ address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', walletType: 'imported', keyManagementScheme: 'aes_single' })
    const evm1 = await f.api.post('/v1/wallets/import', { chain: 'ethereum', mnemonic: ABANDON, accountIndex: 1 }, { token: u.accessToken })
    expect(evm1.body.address).toBe('0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0')
    const sol = await f.api.post('/v1/wallets/import', { chain: 'solana', mnemonic: ABANDON }, { token: u.accessToken })
    expect(sol.status).toBe(201)
    expect(sol.body.address).toBe('HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk')
  })

  test('a private key imports to its address; the same address twice answers 409', async () => {
    const u = await f.user(tenant)
    const res = await f.api.post('/v1/wallets/import', { chain: 'base', privateKey: HARDHAT_KEY }, { token: u.accessToken })
    expect(res.status).toBe(201)
    expect(res.body.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
    const again = await f.api.post('/v1/wallets/import', { chain: 'base', privateKey: HARDHAT_KEY.slice(2) }, { token: u.accessToken })
    expect(again.status).toBe(409)
    // Another tenant may hold the same address.
    const other = await f.tenant()
    const v = await f.user(other)
    expect((await f.api.post('/v1/wallets/import', { chain: 'base', privateKey: HARDHAT_KEY }, { token: v.accessToken })).status).toBe(201)
  })

  test('a Solana base58 secret key imports', async () => {
    const kp = Keypair.generate()
    const u = await f.user(tenant)
    const res = await f.api.post('/v1/wallets/import', { chain: 'solana', privateKey: base58.encode(kp.secretKey) }, { token: u.accessToken })
    expect(res.status).toBe(201)
    expect(res.body.address).toBe(kp.publicKey.toBase58())
  })

  test('bad inputs answer 400 in the envelope with `detail` without echoing the secret', async () => {
    const badKey = 'deadbeef'.repeat(7)
    const cases = [
      { chain: 'ethereum', privateKey: badKey },
      { chain: 'ethereum', mnemonic: 'abandon abandon abandon secretword' },
      { chain: 'ethereum' },
      { chain: 'ethereum', privateKey: HARDHAT_KEY, mnemonic: ABANDON },
      { chain: 'nowhere', privateKey: HARDHAT_KEY },
    ]
    for (const body of cases) {
      const res = await f.api.post('/v1/wallets/import', body, { token: alice.accessToken })
      expect(res.status).toBe(400)
      expect(typeof res.body.detail).toBe('string')
      expect(res.text).not.toContain(badKey)
      expect(res.text).not.toContain('secretword')
      expect(res.text).not.toContain(HARDHAT_KEY.slice(2))
    }
  })

  test('non-custodial tenants cannot import (400)', async () => {
    const nc = await f.tenant({ walletMode: 'non_custodial' })
    const u = await f.user(nc)
    expect((await f.api.post('/v1/wallets/import', { chain: 'ethereum', privateKey: HARDHAT_KEY }, { token: u.accessToken })).status).toBe(400)
  })
})

describe('key export', () => {
  test('request-export-token re-checks the password; export-key answers the key encrypted to the client key', async () => {
    const u = await f.user(tenant)
    const w = (await f.api.post('/v1/wallets/import', { chain: 'ethereum', privateKey: HARDHAT_KEY }, { token: u.accessToken })).body
    const wrong = await f.api.post('/v1/wallets/request-export-token', { walletId: w.id, password: 'Wrong-passw0rd' }, { token: u.accessToken })
    expect(wrong.status).toBe(422)
    const tok = await f.api.post('/v1/wallets/request-export-token', { walletId: w.id, password: u.password }, { token: u.accessToken })
    expect(tok.status).toBe(200)
    expect(tok.body.expiresIn).toBe(300)
    const clientPriv = x25519.utils.randomPrivateKey()
    const clientPublicKey = Buffer.from(x25519.getPublicKey(clientPriv)).toString('base64')
    const res = await f.api.post('/v1/wallets/export-key', { walletId: w.id, exportToken: tok.body.exportToken, clientPublicKey }, { token: u.accessToken })
    expect(res.status).toBe(200)
    expect(res.body.keyFormat).toBe('hex')
    expect(res.body.envelope.scheme).toBe('x25519-hkdf-sha256-aes-256-gcm')
    expect(res.text).not.toContain(HARDHAT_KEY.slice(2))
    const key = openEnvelope(clientPriv, res.body.envelope)
    expect(key).toBe(HARDHAT_KEY)
    expect(privateKeyToAccount(key as `0x${string}`).address).toBe(w.address)
    // single use
    const again = await f.api.post('/v1/wallets/export-key', { walletId: w.id, exportToken: tok.body.exportToken, clientPublicKey }, { token: u.accessToken })
    expect(again.status).toBe(403)
  })

  test('a Solana key exports as the base58 secret key of its address', async () => {
    const u = await f.user(tenant)
    const w = (await create(u, { chain: 'solana' })).body
    const tok = (await f.api.post('/v1/wallets/request-export-token', { walletId: w.id, password: u.password }, { token: u.accessToken })).body
    const clientPriv = x25519.utils.randomPrivateKey()
    const res = await f.api.post('/v1/wallets/export-key', { walletId: w.id, exportToken: tok.exportToken, clientPublicKey: Buffer.from(x25519.getPublicKey(clientPriv)).toString('hex') }, { token: u.accessToken })
    expect(res.status).toBe(200)
    const secret = openEnvelope(clientPriv, res.body.envelope)
    seenSecrets.push(secret)
    expect(Keypair.fromSecretKey(base58.decode(secret)).publicKey.toBase58()).toBe(w.address)
  })

  test('an expired token, a token for another wallet, or another user\'s token answer 403; a bad client key 400', async () => {
    const clock = t.clock as ManualClock
    const u = await f.user(tenant)
    const w1 = (await create(u, { chain: 'ethereum' })).body
    const w2 = (await create(u, { chain: 'polygon' })).body
    const pub = Buffer.from(x25519.getPublicKey(x25519.utils.randomPrivateKey())).toString('base64')
    const tok = (await f.api.post('/v1/wallets/request-export-token', { walletId: w1.id, password: u.password }, { token: u.accessToken })).body
    expect((await f.api.post('/v1/wallets/export-key', { walletId: w2.id, exportToken: tok.exportToken, clientPublicKey: pub }, { token: u.accessToken })).status).toBe(403)
    expect((await f.api.post('/v1/wallets/export-key', { walletId: w1.id, exportToken: tok.exportToken, clientPublicKey: 'AAAA' }, { token: u.accessToken })).status).toBe(400)
    const bob = await f.user(tenant)
    expect((await f.api.post('/v1/wallets/export-key', { walletId: w1.id, exportToken: tok.exportToken, clientPublicKey: pub }, { token: bob.accessToken })).status).toBe(404)
    clock.advance(5 * 60 * 1000 + 1)
    const late = await f.api.post('/v1/wallets/export-key', { walletId: w1.id, exportToken: tok.exportToken, clientPublicKey: pub }, { token: u.accessToken })
    expect(late.status).toBe(403)
  })
})

describe('registration with a wallet', () => {
  test('wallet: { option: create, chain } creates a primary custodial wallet and returns it', async () => {
    const username = unique('reg')
    const res = await f.api.post('/v1/auth/register', { username, email: `${username}@example.com`, password: 'Passw0rd-long', wallet: { option: 'create', chain: 'ethereum' } }, { signedBy: tenant })
    expect(res.status).toBe(201)
    expect(res.body.wallet).toMatchObject({ chain: 'ethereum', walletType: 'managed', isPrimary: true, keyManagementScheme: 'aes_single' })
    const list = await f.api.get('/v1/wallets/', { token: res.body.accessToken })
    expect(list.body.data.map((w: { id: string }) => w.id)).toEqual([res.body.wallet.id])
  })

  test('an unsupported chain answers 422 and creates no user', async () => {
    const username = unique('reg')
    const res = await f.api.post('/v1/auth/register', { username, email: `${username}@example.com`, password: 'Passw0rd-long', wallet: { option: 'create', chain: 'dogecoin' } }, { signedBy: tenant })
    expect(res.status).toBe(422)
    const login = await f.api.post('/v1/auth/login', { username, password: 'Passw0rd-long' }, { signedBy: tenant })
    expect(login.status).toBe(401)
  })

  test('a testnet registry id creates a testnet wallet; non-custodial tenants create none', async () => {
    const username = unique('reg')
    const res = await f.api.post('/v1/auth/register', { username, email: `${username}@example.com`, password: 'Passw0rd-long', wallet: { option: 'create', chain: 'solana-devnet' } }, { signedBy: tenant })
    expect(res.status).toBe(201)
    expect(res.body.wallet).toMatchObject({ chain: 'solana', isTestnet: true })
    const nc = await f.tenant({ walletMode: 'non_custodial' })
    const other = unique('reg')
    const none = await f.api.post('/v1/auth/register', { username: other, email: `${other}@example.com`, password: 'Passw0rd-long', wallet: { option: 'create', chain: 'ethereum' } }, { signedBy: nc })
    expect(none.status).toBe(201)
    expect(none.body.wallet).toBeUndefined()
  })

  test('MPC tenants never create a wallet at registration', async () => {
    const mpc = await f.tenant({ walletMode: 'mpc' })
    const username = unique('reg')
    const res = await f.api.post('/v1/auth/register', { username, email: `${username}@example.com`, password: 'Passw0rd-long', wallet: { option: 'create', chain: 'ethereum' } }, { signedBy: mpc })
    expect(res.status).toBe(201)
    expect(res.body.wallet).toBeUndefined()
    expect((await f.api.get('/v1/wallets/', { token: res.body.accessToken })).body.pagination.total).toBe(0)
  })
})

describe('users and wallets', () => {
  test('GET /v1/users/{id}/wallets: self and the tenant\'s operators; others 404', async () => {
    const u = await f.user(tenant)
    const w = (await create(u, { chain: 'ethereum' })).body
    const own = await f.api.get(`/v1/users/${u.id}/wallets`, { token: u.accessToken })
    expect(own.status).toBe(200)
    expect(own.body.data.map((x: { id: string }) => x.id)).toEqual([w.id])
    const admin = await f.tenantAdmin(tenant)
    expect((await f.api.get(`/v1/users/${u.id}/wallets`, { token: admin.accessToken })).body.data).toHaveLength(1)
    expect((await f.api.get(`/v1/users/${u.id}/wallets?tenantId=${tenant.id}`, { token: await f.adminToken() })).body.data).toHaveLength(1)
    expect((await f.api.get(`/v1/users/${u.id}/wallets`, { token: alice.accessToken })).status).toBe(404)
    const otherTenant = await f.tenant()
    const otherAdmin = await f.tenantAdmin(otherTenant)
    expect((await f.api.get(`/v1/users/${u.id}/wallets`, { token: otherAdmin.accessToken })).status).toBe(404)
  })

  test('advanced-search finds users by wallet address (any case) and wallet id, within the tenant only', async () => {
    const u = await f.user(tenant)
    const w = (await create(u, { chain: 'arbitrum' })).body
    const admin = await f.tenantAdmin(tenant)
    for (const q of [w.address, w.address.toLowerCase(), w.id]) {
      const res = await f.api.get(`/v1/users/advanced-search?q=${encodeURIComponent(q)}`, { token: admin.accessToken })
      expect(res.status).toBe(200)
      expect(res.body.data.map((x: { id: string }) => x.id)).toEqual([u.id])
    }
    const otherAdmin = await f.tenantAdmin(await f.tenant())
    const res = await f.api.get(`/v1/users/advanced-search?q=${w.address}`, { token: otherAdmin.accessToken })
    expect(res.body.data).toEqual([])
  })
})

describe('tenant isolation', () => {
  test('another tenant\'s wallet ids answer 404 on every wallet route', async () => {
    const w = (await create(alice, { chain: 'ethereum' })).body
    const other = await f.tenant()
    const mallory = await f.user(other)
    const token = mallory.accessToken
    const pub = Buffer.from(x25519.getPublicKey(x25519.utils.randomPrivateKey())).toString('base64')
    const calls = [
      f.api.get(`/v1/wallets/${w.id}`, { token }),
      f.api.delete(`/v1/wallets/${w.id}`, { token }),
      f.api.get(`/v1/wallets/${w.id}/balance`, { token }),
      f.api.patch(`/v1/wallets/${w.id}/primary`, { isPrimary: true }, { token }),
      f.api.patch(`/v1/wallets/${w.id}/set-primary`, undefined, { token }),
      f.api.post('/v1/wallets/request-export-token', { walletId: w.id, password: mallory.password }, { token }),
      f.api.post('/v1/wallets/export-key', { walletId: w.id, exportToken: 'x', clientPublicKey: pub }, { token }),
      f.api.get(`/v1/wallets/migration-challenge?walletId=${w.id}&deviceId=${w.id}`, { token }),
      f.api.post('/v1/wallets/confirm-client-custody', { walletId: w.id, challengeId: w.id, signature: '0x00' }, { token }),
      f.api.post('/v1/wallets/cancel-migration', { walletId: w.id }, { token }),
    ]
    for (const res of await Promise.all(calls)) expect(res.status).toBe(404)
    expect((await f.api.get('/v1/wallets/', { token })).body.pagination.total).toBe(0)
  })
})

describe('logs', () => {
  test('no key material reaches the logs', async () => {
    t.deps.logger.flush()
    const all = t.logs.join('\n')
    for (const secret of seenSecrets) expect(all).not.toContain(secret)
    expect(all).not.toContain('abandon abandon')
    expect(all).not.toMatch(/v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{40,}/)
    expect(all).toContain('wallet key exported')
  })
})
