/**
 * MASTER_KEY rotation: a database sealed under key A (version 1) is moved to key B
 * (version 2) by `reseal`, after which B alone opens everything and the API works as before.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { loadConfig } from '@/config'
import { appMeta, tenants } from '@/db/schema'
import { outbox } from '@/jobs/schema'
import { Sealer } from '@/lib/crypto'
import { mailAad, queueMail } from '@/modules/mail/service'
import { openKey } from '@/modules/wallets/keys'
import { wallets } from '@/modules/wallets/schema'
import { findShareOfSession, insertShare } from '@/modules/mpc/repo'
import { shareAad } from '@/modules/mpc/sealed'
import { openSecret } from '@/modules/webhooks/secrets'
import { webhooks } from '@/modules/webhooks/schema'
import { storePaymasterSigner } from '@/modules/gas-sponsorship'
import { reseal, sealedVersions } from '@/ops/reseal'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { startProcess } from '@tests/helpers/process'

const KEY_A = Buffer.alloc(32, 0xa1).toString('base64')
const KEY_B = Buffer.alloc(32, 0xb2).toString('hex')
const dir = mkdtempSync(join(tmpdir(), 'slipway-rotation-'))
const dirs = [dir]
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})
const DATABASE_URL = `file:${join(dir, 'slipway.db')}`
const withKeyA = { DATABASE_URL, MASTER_KEY: KEY_A, JWT_SECRET: '' }
const rotating = { DATABASE_URL, MASTER_KEY: KEY_B, MASTER_KEY_VERSION: '2', MASTER_KEY_PREVIOUS: `1:${KEY_A}`, JWT_SECRET: '' }
const withKeyB = { DATABASE_URL, MASTER_KEY: KEY_B, MASTER_KEY_VERSION: '2', JWT_SECRET: '' }

/** What key A sealed, read back in plain text before the rotation. */
interface Plain {
  jwtKey: Uint8Array
  apiSecret: string
  rampKey: string
  webhookSecret: string
  walletKey: Uint8Array
  mailTemplate: string
  mpcShare: string
  paymasterSigner: string
}

let tenant: Tenant
let user: SignedInUser
let walletId: string
let mailId: string
const mpcSessionId = crypto.randomUUID()
let before: Plain

async function plainOf(t: TestApp): Promise<Plain> {
  const { db } = t.deps.database
  const w = (await db.select().from(wallets).where(eq(wallets.id, walletId)).get())!
  const hook = (await db.select().from(webhooks).where(eq(webhooks.tenantId, tenant.id)).get())!
  const row = (await db.select().from(tenants).where(eq(tenants.id, tenant.id)).get())!
  const ramp = (row.settings.bankRamp as { sandbox: { apiKeySealed: string } }).sandbox
  const mail = (await db.select().from(outbox).where(eq(outbox.id, mailId)).get())!
  const share = (await findShareOfSession(db, tenant.id, mpcSessionId))!
  return {
    jwtKey: t.deps.jwtKey,
    apiSecret: t.deps.sealer.open(row.apiSecretSealed, `tenant:${tenant.id}:api_secret`),
    rampKey: t.deps.sealer.open(ramp.apiKeySealed, `tenant:${tenant.id}:bankRamp:sandbox:apiKey`),
    webhookSecret: openSecret(t.deps, hook),
    walletKey: openKey(t.deps.sealer, { tenantId: w.tenantId, walletId: w.id, address: w.address }, { dataKeyWrapped: w.dataKeyWrapped!, keySealed: w.keySealed! }),
    mailTemplate: t.deps.sealer.open(String(mail.payload.sealed), mailAad(mailId)),
    mpcShare: t.deps.sealer.openBytes(share.shareSealed, shareAad(tenant.id, mpcSessionId)).toString('base64'),
    paymasterSigner: t.deps.sealer.open(String((await t.deps.database.client.execute(`SELECT key_sealed FROM paymaster_signers WHERE network = 'sepolia'`)).rows[0]!.key_sealed), 'paymaster_signer:sepolia'),
  }
}

beforeAll(async () => {
  const t = await makeApp({ env: withKeyA })
  try {
    t.deps.resolveHost = async () => ['93.184.216.34']
    const f = new Factory(t)
    const admin = await f.adminToken()
    tenant = await f.tenant()
    expect((await f.api.patch(`/v1/admin/tenants/${tenant.id}`, { bankRamp: { sandbox: { connected: true, apiKey: 'partner-key-123', webhookKey: 'partner-hook-456' } } }, { token: admin })).status).toBe(200)
    expect((await f.api.put(`/v1/admin/tenants/${tenant.id}/webhooks/sandbox`, { url: 'https://hooks.example.com/slipway', eventTypes: ['ramp.kyc.updated'] }, { token: admin })).status).toBe(201)
    user = await f.user(tenant)
    const w = await f.api.post('/v1/wallets/', { chain: 'ethereum' }, { token: user.accessToken })
    expect(w.status).toBe(201)
    walletId = w.body.id
    mailId = await t.deps.database.write((tx) => queueMail(t.deps, tx, { tenantId: tenant.id, to: user.email, senderName: 'Rotation', locale: 'en', template: { kind: 'password-changed', at: 1 } }, Date.now()))
    // a service party's key share (stands for a DKLs23 share: reseal moves opaque bytes)
    await t.deps.database.write((tx) => insertShare(tx, {
      sessionId: mpcSessionId, tenantId: tenant.id, userId: user.id, walletId: null, publicKey: `0x02${'ab'.repeat(32)}`,
      shareSealed: t.deps.sealer.seal(crypto.getRandomValues(new Uint8Array(2048)), shareAad(tenant.id, mpcSessionId)), createdAt: Date.now(),
    }))
    // the deployment's paymaster signer (a stand-in key and address: reseal moves opaque text)
    expect(await storePaymasterSigner(t.deps, 'sepolia', `0x${'5a'.repeat(32)}`, `0x${'5b'.repeat(20)}`, false)).toBe(true)
    before = await plainOf(t)
    expect(await sealedVersions(t.deps)).toEqual({ currentVersion: 1, byVersion: { '1': 9 }, remaining: 0 })
  } finally {
    await t.close()
  }
})

describe('rotating MASTER_KEY', () => {
  let report: Awaited<ReturnType<typeof reseal>>

  beforeAll(async () => {
    const t = await makeApp({ env: rotating, admin: false })
    try {
      report = await reseal(t.deps)
      // a second run finds nothing to do
      const again = await reseal(t.deps)
      expect(Object.values(again.columns).every((c) => c.resealed === 0 && c.failed === 0)).toBe(true)
    } finally {
      await t.close()
    }
  })

  test('reseal moves every sealed value to the new version and reports each column', () => {
    expect(report.currentVersion).toBe(2)
    expect(report.columns).toEqual({
      'app_meta.jwt_secret': { resealed: 1, failed: 0 },
      'tenants.api_secret_sealed': { resealed: 1, failed: 0 },
      'tenants.settings bankRamp credentials': { resealed: 2, failed: 0 },
      'tenants.settings cardOnramp credentials': { resealed: 0, failed: 0 },
      'webhooks.secret_sealed': { resealed: 1, failed: 0 },
      'wallets.data_key_wrapped': { resealed: 1, failed: 0 },
      'outbox mail.send (not yet queued)': { resealed: 1, failed: 0 },
      // sealed and in-clear ramp bank details: tests/ramp/sealed-bank-details.test.ts
      'ramp_payment_methods.iban': { resealed: 0, failed: 0 },
      'ramp_payout_quotes.ramp_payment_method_id': { resealed: 0, failed: 0 },
      'mpc_service_shares.share_sealed': { resealed: 1, failed: 0 },
      'paymaster_signers.key_sealed': { resealed: 1, failed: 0 },
    })
    expect(report.byVersion).toEqual({ '2': 9 })
    expect(report.remaining).toBe(0)
  })

  test('afterwards the new key alone opens the same secrets, and the old key no longer does', async () => {
    const t = await makeApp({ env: withKeyB, admin: false })
    try {
      const after = await plainOf(t)
      expect(after).toEqual(before)
      const w = (await t.deps.database.db.select().from(wallets).where(eq(wallets.id, walletId)).get())!
      expect(w.keyVersion).toBe(2)
      expect(w.dataKeyWrapped!.startsWith('v2.')).toBe(true)
      const jwtRow = (await t.deps.database.db.select().from(appMeta).where(eq(appMeta.key, 'jwt_secret')).get())!
      expect(() => new Sealer(Buffer.from(KEY_A, 'base64'), 1).open(jwtRow.value, 'app_meta:jwt_secret')).toThrow()
    } finally {
      await t.close()
    }
  })

  test('the API works on the new key alone: tenant signatures, tokens issued before, wallet keys', async () => {
    const t = await makeApp({ env: withKeyB, admin: false })
    try {
      const f = new Factory(t)
      // the access token issued under key A's era verifies (the JWT key was re-sealed, not replaced)
      const me = await f.api.get(`/v1/users/${user.id}`, { token: user.accessToken })
      expect(me.status).toBe(200)
      // a tenant-signed request with the API secret issued before the rotation
      const login = await f.api.post('/v1/auth/login', { username: user.username, password: user.password }, { signedBy: tenant })
      expect(login.status).toBe(200)
      const wallet = await f.api.get(`/v1/wallets/${walletId}`, { token: user.accessToken })
      expect(wallet.status).toBe(200)
    } finally {
      await t.close()
    }
  })

  test('without MASTER_KEY_VERSION bumped, start-up says which key is wrong instead of failing later', async () => {
    await expect(makeApp({ env: { DATABASE_URL, MASTER_KEY: KEY_A, JWT_SECRET: '' }, admin: false })).rejects.toThrow(/sealed with master key version 2\) does not open with the configured keys/)
  })
})

describe('values no key opens', () => {
  test('are counted as failed and left alone; the rest is re-sealed and the run reports what remains', async () => {
    const d = mkdtempSync(join(tmpdir(), 'slipway-rotation-bad-'))
    dirs.push(d)
    const url = `file:${join(d, 'slipway.db')}`
    const a = await makeApp({ env: { DATABASE_URL: url, MASTER_KEY: KEY_A } })
    const f = new Factory(a)
    const good = await f.tenant()
    const bad = await f.tenant()
    // sealed under a version-1 key nobody configured
    const foreign = new Sealer(Buffer.alloc(32, 0x33), 1).seal('lost', `tenant:${bad.id}:api_secret`)
    await a.deps.database.write((tx) => tx.update(tenants).set({ apiSecretSealed: foreign }).where(eq(tenants.id, bad.id)))
    await a.close()
    const b = await makeApp({ env: { DATABASE_URL: url, MASTER_KEY: KEY_B, MASTER_KEY_VERSION: '2', MASTER_KEY_PREVIOUS: `1:${KEY_A}` }, admin: false })
    try {
      const r = await reseal(b.deps)
      expect(r.columns['tenants.api_secret_sealed']).toEqual({ resealed: 1, failed: 1 })
      expect(r.remaining).toBe(1)
      const rows = await b.deps.database.db.select().from(tenants)
      expect(rows.find((x) => x.id === bad.id)!.apiSecretSealed).toBe(foreign)
      expect(b.deps.sealer.open(rows.find((x) => x.id === good.id)!.apiSecretSealed, `tenant:${good.id}:api_secret`)).toBe(good.apiSecret)
    } finally {
      await b.close()
    }
  })
})

describe('configuration', () => {
  test('MASTER_KEY_PREVIOUS takes version:key pairs and names every mistake without printing a key', () => {
    const c = loadConfig({ MASTER_KEY: KEY_B, MASTER_KEY_VERSION: '3', MASTER_KEY_PREVIOUS: `1:${KEY_A}, 2:${Buffer.alloc(32, 5).toString('hex')}` })
    expect(c.masterKeyVersion).toBe(3)
    expect(Object.keys(c.masterKeyPrevious)).toEqual(['1', '2'])
    const bad = (env: Record<string, string>) => {
      try {
        loadConfig(env)
      } catch (err) {
        return (err as Error).message
      }
      throw new Error('expected a ConfigError')
    }
    expect(bad({ MASTER_KEY: KEY_B, MASTER_KEY_VERSION: '2', MASTER_KEY_PREVIOUS: `2:${KEY_A}` })).toContain('version 2 is the current MASTER_KEY_VERSION')
    expect(bad({ MASTER_KEY: KEY_B, MASTER_KEY_VERSION: '3', MASTER_KEY_PREVIOUS: `1:${KEY_A},1:${KEY_A}` })).toContain('version 1 is given twice')
    const malformed = bad({ MASTER_KEY: KEY_B, MASTER_KEY_VERSION: '2', MASTER_KEY_PREVIOUS: 'one:not-a-key-but-a-secret' })
    expect(malformed).toContain('MASTER_KEY_PREVIOUS')
    expect(malformed).not.toContain('not-a-key-but-a-secret')
    expect(bad({ MASTER_KEY_VERSION: '2' })).toContain('need MASTER_KEY')
    expect(bad({ MASTER_KEY: KEY_B, MASTER_KEY_VERSION: '0' })).toContain('MASTER_KEY_VERSION')
  })
})

describe('slipway reseal (the command)', () => {
  test('--check exits 1 while values remain under an old version, reseal moves them, then --check exits 0', async () => {
    const d = mkdtempSync(join(tmpdir(), 'slipway-rotation-cli-'))
    dirs.push(d)
    const url = `file:${join(d, 'slipway.db')}`
    // a server on key A creates the database, its generated JWT key and a tenant
    const p = await startProcess([process.execPath, 'src/index.ts'], { dir: d, env: { MASTER_KEY: KEY_A } })
    await p.stop()
    const run = (args: string[], env: Record<string, string>) => {
      const r = Bun.spawnSync([process.execPath, 'src/index.ts', 'reseal', ...args], { env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent', ...env } })
      return { code: r.exitCode, out: r.stdout.toString() }
    }
    const env = { MASTER_KEY: KEY_B, MASTER_KEY_VERSION: '2', MASTER_KEY_PREVIOUS: `1:${KEY_A}` }
    const check = run(['--check'], env)
    expect(check.code).toBe(1)
    expect(JSON.parse(check.out)).toMatchObject({ currentVersion: 2, byVersion: { '1': 1 }, remaining: 1 })
    const done = run([], env)
    expect(done.code).toBe(0)
    expect(JSON.parse(done.out)).toMatchObject({ remaining: 0, columns: { 'app_meta.jwt_secret': { resealed: 1, failed: 0 } } })
    const after = run(['--check'], { MASTER_KEY: KEY_B, MASTER_KEY_VERSION: '2' })
    expect(after.code).toBe(0)
    expect(after.out).not.toContain(KEY_B)
  })
})

