/**
 * Work done on a user's behalf without the user's request (an agent paying from the user's
 * wallet, an MPC session's signing finished by a party's report) runs in the owner's context
 * (src/modules/users/owner.ts). It is held to the bearer check's rule: a deleted user or a
 * disabled tenant acts no more, whoever acts for it.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory } from '@tests/helpers/factories'
import { ownerContext } from '@/modules/users'

let t: TestApp
let f: Factory

beforeAll(async () => {
  t = await makeApp()
  f = new Factory(t)
})
afterAll(() => t.close())

test('an active user of an active tenant: the context names the user and the tenant', async () => {
  const tenant = await f.tenant()
  const user = await f.user(tenant)
  const ctx = await ownerContext(t.deps, user.id, 'test:active')
  expect(ctx?.actor.userId).toBe(user.id)
  expect(ctx?.tenant?.id).toBe(tenant.id)
  expect(ctx?.requestId).toBe('test:active')
})

test('a user that does not exist, or was deleted: no context', async () => {
  expect(await ownerContext(t.deps, crypto.randomUUID(), 'test:none')).toBeNull()
  const tenant = await f.tenant()
  const user = await f.user(tenant)
  const ta = await f.tenantAdmin(tenant)
  expect((await f.api.delete(`/v1/users/${user.id}`, { token: ta.accessToken })).status).toBe(204)
  expect(await ownerContext(t.deps, user.id, 'test:deleted')).toBeNull()
})

test('a user of a disabled tenant: no context, and again one once the tenant is enabled', async () => {
  const tenant = await f.tenant()
  const user = await f.user(tenant)
  const admin = await f.adminToken()
  expect((await f.api.patch(`/v1/admin/tenants/${tenant.id}`, { status: 'disabled' }, { token: admin })).status).toBe(200)
  expect(await ownerContext(t.deps, user.id, 'test:disabled')).toBeNull()
  expect((await f.api.patch(`/v1/admin/tenants/${tenant.id}`, { status: 'active' }, { token: admin })).status).toBe(200)
  expect((await ownerContext(t.deps, user.id, 'test:enabled'))?.actor.userId).toBe(user.id)
})
