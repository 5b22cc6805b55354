/**
 * The tenant admin's gas policy routes: what they answer, bad inputs (the error envelope, nothing
 * written), who may call them, and another tenant's id answering 404; sponsorship off where the
 * deployment has no bundler.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'

let t: TestApp
let f: Factory
let tenant: Tenant
let other: Tenant
let admin: SignedInUser
let otherAdmin: SignedInUser

beforeAll(async () => {
  t = await makeApp()
  f = new Factory(t)
  tenant = await f.tenant()
  other = await f.tenant()
  admin = await f.tenantAdmin(tenant)
  otherAdmin = await f.tenantAdmin(other)
})

const put = (who: SignedInUser, tenantId: string, network: string, body: unknown) => f.api.put(`/v1/admin/tenants/${tenantId}/gas-policies/${network}`, body, { token: who.accessToken })

describe('gas policies', () => {
  test('set, changed in part, listed; sponsorshipAvailable false without a bundler', async () => {
    const res = await put(admin, tenant.id, 'sepolia', { enabled: true, operations: ['send', 'dapp', 'send'], userDailyLimitWei: '1000', allowlist: [{ contract: '0x' + 'AB'.repeat(20), selectors: ['0xA9059CBB'] }] })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      network: 'sepolia', enabled: true, operations: ['send', 'dapp'], userDailyLimitWei: '1000', tenantMonthlyBudgetWei: null, maxPerOperationWei: null,
      allowlist: [{ contract: '0x' + 'ab'.repeat(20), selectors: ['0xa9059cbb'] }], sponsorshipAvailable: false,
    })
    const part = await put(admin, tenant.id, 'sepolia', { enabled: false, maxPerOperationWei: '5' })
    expect(part.body).toMatchObject({ enabled: false, userDailyLimitWei: '1000', maxPerOperationWei: '5', operations: ['send', 'dapp'] })
    const list = await f.api.get(`/v1/admin/tenants/${tenant.id}/gas-policies`, { token: admin.accessToken })
    expect(list.status).toBe(200)
    expect(list.body.data.map((p: { network: string }) => p.network)).toEqual(['sepolia'])
  })

  test('bad inputs answer 400 and write nothing: not an EVM network, a wei amount that is not an integer, an unknown kind or property, a contract listed twice', async () => {
    for (const [network, body, code] of [
      ['solana-devnet', { enabled: true }, 'GAS_POLICY_INVALID'],
      ['nowhere', { enabled: true }, 'GAS_POLICY_INVALID'],
      ['ethereum', { enabled: true, userDailyLimitWei: '1.5' }, undefined],
      ['ethereum', { enabled: true, operations: ['mint'] }, undefined],
      ['ethereum', { enabled: true, extra: 1 }, undefined],
      ['ethereum', { enabled: true, allowlist: [{ contract: '0x' + 'ab'.repeat(20), selectors: [] }, { contract: '0x' + 'AB'.repeat(20), selectors: [] }] }, 'GAS_POLICY_INVALID'],
    ] as const) {
      const res = await put(admin, tenant.id, network, body)
      expect({ network, status: res.status }).toEqual({ network, status: 400 })
      if (code) expect(res.body.code).toBe(code)
    }
    const list = await f.api.get(`/v1/admin/tenants/${tenant.id}/gas-policies`, { token: admin.accessToken })
    expect(list.body.data.map((p: { network: string }) => p.network)).toEqual(['sepolia'])
  })

  test('a user gets 403; another tenant\'s admin gets 404 for this tenant\'s policies and usage', async () => {
    const u = await f.user(tenant)
    expect((await put(u, tenant.id, 'ethereum', { enabled: true })).status).toBe(403)
    expect((await put(otherAdmin, tenant.id, 'ethereum', { enabled: true })).status).toBe(404)
    expect((await f.api.get(`/v1/admin/tenants/${tenant.id}/gas-usage`, { token: otherAdmin.accessToken })).status).toBe(404)
    // a user of another tenant, asked for by this tenant's admin: 404
    const stranger = await f.user(other)
    expect((await f.api.get(`/v1/admin/tenants/${tenant.id}/gas-usage?userId=${stranger.id}`, { token: admin.accessToken })).status).toBe(404)
    const mine = await f.api.get('/v1/gas-sponsorship/usage', { token: u.accessToken })
    expect(mine.status).toBe(200)
    expect(mine.body).toMatchObject({ scope: 'user', userId: u.id, networks: [] })
  })

  test('ERC-7677 on a network without a bundler: a JSON-RPC error with 503 GAS_SPONSORSHIP_NOT_CONFIGURED; an unknown method: -32601', async () => {
    const u = await f.user(tenant)
    const { generatePrivateKey, privateKeyToAccount } = await import('viem/accounts')
    const { clientWallet } = await import('../transactions/helpers')
    const owner = privateKeyToAccount(generatePrivateKey())
    await clientWallet(f.api, u, owner)
    await put(admin, tenant.id, 'ethereum', { enabled: true, operations: ['send'] })
    const op = { sender: owner.address, nonce: '0x0', callData: '0xb61d27f6' + '0'.repeat(64 * 2) + '0'.repeat(62) + '60' + '0'.repeat(64), callGasLimit: '0x1', verificationGasLimit: '0x1', preVerificationGas: '0x1', maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x1', signature: '0x' }
    const call = (method: string) => f.api.post('/v1/gas-sponsorship/ethereum/rpc', { jsonrpc: '2.0', id: 7, method, params: [op, '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108', '0x1', {}] }, { token: u.accessToken })
    const res = await call('pm_getPaymasterStubData')
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { data: { status: 503, code: 'GAS_SPONSORSHIP_NOT_CONFIGURED' } } })
    expect((await call('pm_sponsorUserOperation')).body.error.code).toBe(-32601)
  })
})
