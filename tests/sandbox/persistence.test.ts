/**
 * The embedded bank ramp simulator keeps its state in Slipway's database: a Slipway restart
 * (a new app on the same database file) changes nothing for a sandbox user. Its customers,
 * IBANs, deposits and onboarding links are there after it; a new user's IBAN is never an
 * earlier one's; `slipway sandbox reset-user` forgets one user and nobody else; and one
 * tenant's records are never loaded into, or served from, another tenant's account.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { and, eq } from 'drizzle-orm'
import { makeApp, TEST_JWT_SECRET, TEST_MASTER_KEY, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { embeddedCredentials } from '@/sandbox/bank-ramp/embedded-keys'
import { rampCustomers, rampPayouts } from '@/modules/ramp/schema'
import { sandboxBankRampRecords } from '@/sandbox/bank-ramp/schema'
import { resetSandboxUser, ResetRefused } from '@/ops/sandbox-reset-user'
import { until } from '../ramp/world'

const SANDBOX = { bankRamp: { sandbox: { connected: true, functions: { kyc: true, payin: true, payout: false } } } }

let dir: string
let t: TestApp
let f: Factory

/** A Slipway app on the test's database file: calling it again is a restart. */
async function boot() {
  t = await makeApp({ env: { DATABASE_URL: `file:${join(dir, 'slipway.db')}` } })
  f = new Factory(t)
}
async function restart() {
  await t.deps.bankRampSimulator!.settle()
  await t.close()
  await boot()
}

const page = (url: string, init?: RequestInit) => t.handle(new Request(url, init))
const decide = (url: string, decision = 'approve') =>
  page(`${url}/decision`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `decision=${decision}` })
/** the embedded simulator's partner API, as the tenant's own key opens it */
const partner = (tenantId: string, path: string, init: RequestInit = {}) =>
  page(`http://slipway.test/sandbox/bank-ramp/v1${path}`, { ...init, headers: { 'content-type': 'application/json', 'x-api-key': embeddedCredentials(t.deps.jwtKey, tenantId).apiKey, ...init.headers } })
const status = (u: SignedInUser) => f.api.get('/v1/ramp/bank/payin/onboarding-status?isTestnet=true', { token: u.accessToken })
const customerIdOf = async (tenant: Tenant, u: SignedInUser) =>
  (await t.deps.database.db.select().from(rampCustomers).where(and(eq(rampCustomers.tenantId, tenant.id), eq(rampCustomers.userId, u.id))).get())?.id

async function onboardSession(u: SignedInUser) {
  const s = await f.api.post('/v1/ramp/bank/payin/onboard-session', { isTestnet: true }, { token: u.accessToken })
  expect(s.status).toBe(200)
  return s.body as { url: string; reused: boolean }
}

async function approve(u: SignedInUser) {
  const s = await onboardSession(u)
  expect((await page(s.url)).status).toBe(200)
  expect((await decide(s.url)).status).toBe(200)
  await t.deps.bankRampSimulator!.settle()
  await until(() => status(u), (r) => r.body.kycStatus === 'approved')
}

async function initiate(u: SignedInUser) {
  const wallet = await f.api.post('/v1/wallets/', { chain: 'base', isTestnet: true }, { token: u.accessToken })
  expect(wallet.status).toBe(201)
  const res = await f.api.post('/v1/ramp/bank/payin/initiate', { walletId: wallet.body.id, isTestnet: true }, { token: u.accessToken })
  expect(res.status).toBe(200)
  return res.body as { iban: string; paymentMethodId: string }
}

async function deposit(u: SignedInUser, amount: number) {
  const dep = await f.api.post('/v1/ramp/bank/payin/sandbox/simulate-deposit', { amount }, { token: u.accessToken })
  expect(dep.status).toBe(200)
  await t.deps.bankRampSimulator!.settle()
  await until(() => f.api.get('/v1/ramp/bank/payin/deposits?isTestnet=true', { token: u.accessToken }), (r) => r.body.deposits.some((d: { id: string; status: string }) => d.id === dep.body.depositId && d.status === 'completed'))
}

let tenant: Tenant
let other: Tenant
/** approved, with an IBAN and a deposit before the restart */
let alice: SignedInUser
/** given an onboarding link before the restart, never opened */
let bob: SignedInUser
/** other's user, approved with an IBAN before the restart */
let olga: SignedInUser
let bobLink: string
const ibansBefore: string[] = []

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'slipway-sandbox-persist-'))
  await boot()
  tenant = await f.tenant(SANDBOX)
  other = await f.tenant(SANDBOX)
  alice = await f.user(tenant)
  bob = await f.user(tenant)
  olga = await f.user(other)
  await approve(alice)
  ibansBefore.push((await initiate(alice)).iban)
  await deposit(alice, 20)
  await approve(olga)
  ibansBefore.push((await initiate(olga)).iban)
  bobLink = (await onboardSession(bob)).url
  await restart()
}, 30_000)

afterAll(async () => {
  await t.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('after a restart', () => {
  test('simulate-deposit and payin/initiate work for a user onboarded before it (was 404 "Payment method not found" / "Customer not found")', async () => {
    await deposit(alice, 30)
    const deposits = await f.api.get('/v1/ramp/bank/payin/deposits?isTestnet=true', { token: alice.accessToken })
    expect(deposits.body.deposits.map((d: { fiatAmount: string }) => d.fiatAmount).sort()).toEqual(['20', '30'])
    // a second wallet gets a second IBAN from the same, still known, customer
    const again = await initiate(alice)
    expect(ibansBefore).not.toContain(again.iban)
    ibansBefore.push(again.iban)
    const methods = await f.api.get('/v1/ramp/bank/payin/payment-methods?isTestnet=true', { token: alice.accessToken })
    expect(methods.body.paymentMethods).toHaveLength(2)
  })

  test('the simulator still knows the customer, its IBAN and its deposits', async () => {
    const customerId = (await customerIdOf(tenant, alice))!
    const c = await partner(tenant.id, `/customers/${customerId}`)
    expect(c.status).toBe(200)
    expect((await c.json()).Verification.Status).toBe('Approved')
    const methods = await (await partner(tenant.id, `/payment-methods?CustomerID=${customerId}`)).json()
    expect(methods.Items.map((m: { DisplayDetails: { AccountNumber: string } }) => m.DisplayDetails.AccountNumber)).toContain(ibansBefore[0])
  })

  test('onboard-session hands back a link the simulator still knows: it opens and approves', async () => {
    const s = await onboardSession(bob)
    expect(s).toMatchObject({ url: bobLink, reused: true })
    const opened = await page(s.url)
    expect(opened.status).toBe(200)
    expect(await opened.text()).toContain('Approve')
    expect((await decide(s.url)).status).toBe(200)
    await t.deps.bankRampSimulator!.settle()
    expect((await until(() => status(bob), (r) => r.body.kycStatus === 'approved')).body.verificationStatus).toBe('Approved')
  })

  test('onboard-session does not hand back a link the simulator does not know (one made before it kept its state): it makes a new one', async () => {
    const dave = await f.user(tenant)
    const first = await onboardSession(dave)
    // as if made by a simulator that kept nothing: its records are gone, Slipway still holds the link
    const daveCustomer = (await customerIdOf(tenant, dave))!
    await t.deps.database.write((tx) => tx.delete(sandboxBankRampRecords).where(eq(sandboxBankRampRecords.customerId, daveCustomer)))
    await restart()
    expect((await page(first.url)).status).toBe(404)
    const again = await onboardSession(dave)
    expect(again.reused).toBe(false)
    expect(again.url).not.toBe(first.url)
    expect((await page(again.url)).status).toBe(200)
    expect((await decide(again.url)).status).toBe(200)
    await t.deps.bankRampSimulator!.settle()
    await until(() => status(dave), (r) => r.body.kycStatus === 'approved')
  })

  test('a new user gets an IBAN no earlier user had', async () => {
    const carol = await f.user(tenant)
    await approve(carol)
    const { iban } = await initiate(carol)
    expect(ibansBefore).not.toContain(iban)
    const bobs = await initiate(bob)
    expect([...ibansBefore, iban]).not.toContain(bobs.iban)
  })

  test('another tenant\'s records are neither loaded into nor served from this tenant\'s account', async () => {
    const aliceCustomer = (await customerIdOf(tenant, alice))!
    const olgaCustomer = (await customerIdOf(other, olga))!
    // each tenant sees its own customer, not the other's
    expect((await partner(other.id, `/customers/${olgaCustomer}`)).status).toBe(200)
    expect((await partner(other.id, `/customers/${aliceCustomer}`)).status).toBe(404)
    expect((await partner(tenant.id, `/customers/${olgaCustomer}`)).status).toBe(404)
    expect((await (await partner(other.id, `/payment-methods?CustomerID=${aliceCustomer}`)).json()).Items).toEqual([])
    const aliceMethod = (await (await partner(tenant.id, `/payment-methods?CustomerID=${aliceCustomer}`)).json()).Items[0].ID
    const stolen = await partner(other.id, '/sandbox/fiat-deposit/simulate', { method: 'POST', body: JSON.stringify({ PaymentMethodID: aliceMethod, FiatAmount: '5', FiatCurrency: 'EUR' }) })
    expect(stolen.status).toBe(404)

    // a saved row that names one account but holds another's record is not loaded, and is deleted
    const { db } = t.deps.database
    const row = (await db.select().from(sandboxBankRampRecords).where(and(eq(sandboxBankRampRecords.kind, 'customers'), eq(sandboxBankRampRecords.id, `${tenant.id}:${aliceCustomer}`))).get())!
    await db.insert(sandboxBankRampRecords).values({ ...row, id: `${other.id}:${aliceCustomer}`, accountId: other.id })
    await restart()
    expect((await partner(other.id, `/customers/${aliceCustomer}`)).status).toBe(404)
    expect((await partner(tenant.id, `/customers/${aliceCustomer}`)).status).toBe(200)
    const left = await t.deps.database.db.select().from(sandboxBankRampRecords).where(eq(sandboxBankRampRecords.id, `${other.id}:${aliceCustomer}`)).all()
    expect(left).toEqual([])
  })
})

describe('slipway sandbox reset-user', () => {
  test('forgets the user in Slipway and in the running simulator: onboarding starts again, with a new IBAN; other users keep theirs', async () => {
    const oldCustomer = (await customerIdOf(tenant, alice))!
    const bobCustomer = (await customerIdOf(tenant, bob))!
    const bobBefore = (await status(bob)).body
    const report = await resetSandboxUser(t.deps, tenant.id, alice.id)
    expect(report).toMatchObject({ tenantId: tenant.id, userId: alice.id, customerId: oldCustomer, sandbox: 'embedded' })
    expect(report.simulatorRecords).toBeGreaterThan(0)
    expect(report.slipwayRecords).toMatchObject({ ramp_customers: 1, ramp_payment_methods: 2, ramp_deposits: 2, ramp_transactions: 4 })

    // Slipway: nothing left of the sandbox ramp
    expect((await status(alice)).body).toMatchObject({ kycStatus: 'not_started', onboardingStatus: 'not_started', nextStep: 'create_session' })
    expect((await f.api.get('/v1/ramp/bank/payin/deposits?isTestnet=true', { token: alice.accessToken })).body.total).toBe(0)
    expect((await f.api.post('/v1/ramp/bank/payin/sandbox/simulate-deposit', { amount: 5 }, { token: alice.accessToken })).status).toBe(404)
    // the running simulator forgot the customer at once, and its rows are gone
    expect((await partner(tenant.id, `/customers/${oldCustomer}`)).status).toBe(404)
    expect((await (await partner(tenant.id, `/payment-methods?CustomerID=${oldCustomer}`)).json()).Items).toEqual([])
    expect(await t.deps.database.db.select().from(sandboxBankRampRecords).where(eq(sandboxBankRampRecords.customerId, oldCustomer)).all()).toEqual([])

    // Bob is untouched
    expect((await status(bob)).body).toEqual(bobBefore)
    expect((await partner(tenant.id, `/customers/${bobCustomer}`)).status).toBe(200)

    // onboarding from scratch: a new link, a new partner customer, a new IBAN
    const s = await onboardSession(alice)
    expect(s.reused).toBe(false)
    await approve(alice)
    expect(await customerIdOf(tenant, alice)).not.toBe(oldCustomer)
    const { iban } = await initiate(alice)
    expect(ibansBefore).not.toContain(iban)

    // and a restart does not bring the old customer back
    await restart()
    expect((await partner(tenant.id, `/customers/${oldCustomer}`)).status).toBe(404)
    expect((await partner(tenant.id, `/customers/${bobCustomer}`)).status).toBe(200)
  })

  test('an unknown tenant or user is refused and nothing changes', async () => {
    await expect(resetSandboxUser(t.deps, tenant.id, olga.id)).rejects.toBeInstanceOf(ResetRefused)
    await expect(resetSandboxUser(t.deps, crypto.randomUUID(), alice.id)).rejects.toBeInstanceOf(ResetRefused)
    expect((await status(olga)).body.kycStatus).toBe('approved')
  })

  test('refused while one of the user\'s sandbox payouts is still running, and nothing is forgotten', async () => {
    const now = Date.now()
    const payout = { id: crypto.randomUUID(), tenantId: other.id, environment: 'sandbox' as const, userId: olga.id, quoteId: crypto.randomUUID(), walletId: crypto.randomUUID(), chain: 'base', cryptoCurrency: 'USDC', cryptoAuthorizedAmount: '1000000', fiatAmount: '1.00', fiatCurrency: 'EUR', totalFee: '0.01', status: 'processing', createdAt: now, updatedAt: now }
    await t.deps.database.write((tx) => tx.insert(rampPayouts).values(payout))
    const refused = await resetSandboxUser(t.deps, other.id, olga.id).catch((e: Error) => e)
    expect(refused).toBeInstanceOf(ResetRefused)
    expect((refused as Error).message).toContain(`${payout.id}: processing`)
    expect((await status(olga)).body.kycStatus).toBe('approved')
    await t.deps.database.write((tx) => tx.update(rampPayouts).set({ status: 'completed' }).where(eq(rampPayouts.id, payout.id)))
    expect((await resetSandboxUser(t.deps, other.id, olga.id)).slipwayRecords.ramp_payouts).toBe(1)
    expect((await status(olga)).body.kycStatus).toBe('not_started')
  })

  test('the command, run beside a running server on its database, forgets the user there too', async () => {
    const bobCustomer = (await customerIdOf(tenant, bob))!
    const cli = async (...args: string[]) => {
      const proc = Bun.spawn([process.execPath, 'src/index.ts', 'sandbox', 'reset-user', ...args], {
        env: { ...process.env, DATABASE_URL: `file:${join(dir, 'slipway.db')}`, JWT_SECRET: TEST_JWT_SECRET, MASTER_KEY: TEST_MASTER_KEY, LOG_LEVEL: 'silent' },
        stdout: 'pipe', stderr: 'pipe',
      })
      const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
      return { out, err, code }
    }
    const usage = await cli('--tenant', tenant.id)
    expect(usage.code).toBe(2)
    expect(usage.err).toContain('usage: slipway sandbox reset-user --tenant <tenantId> --user <userId>')
    const done = await cli('--tenant', tenant.id, '--user', bob.id)
    expect(done.err).toBe('')
    expect(done.code).toBe(0)
    expect(JSON.parse(done.out)).toMatchObject({ tenantId: tenant.id, userId: bob.id, customerId: bobCustomer, slipwayRecords: { ramp_customers: 1 } })
    // this process's simulator had Bob in memory: it forgets him before its next request
    expect((await partner(tenant.id, `/customers/${bobCustomer}`)).status).toBe(404)
    expect((await status(bob)).body.kycStatus).toBe('not_started')
    expect((await status(alice)).body.kycStatus).toBe('approved')
  }, 30_000)
})
