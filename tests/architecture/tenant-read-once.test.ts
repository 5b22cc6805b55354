/**
 * The tenant is read once per request (docs/platform.md, "The request context"): the bearer check
 * reads the user with its tenant in one prepared statement (src/db/callers.ts), and the context
 * carries that tenant to every verb. No verb reads the tenants table again: here every statement
 * the app prepares while it answers is recorded (@libsql/client prepares one per query; the
 * credential reads are prepared once per connection and so are not seen), and none may read it.
 * (On a local file the credential layer reads the settings by the tenant's id when first used,
 * once per request: tests/platform/credential-reads.test.ts. This runs in memory.)
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import Database from 'libsql'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'

let t: TestApp
let f: Factory
let tenant: Tenant
let user: SignedInUser
let admin: SignedInUser
const prepared: string[] = []
type Prepare = (this: unknown, sql: string) => unknown
const proto = Database.prototype as unknown as { prepare: Prepare }
const original = proto.prepare

beforeAll(async () => {
  t = await makeApp()
  f = new Factory(t)
  tenant = await f.tenant({ walletMode: 'mpc' })
  user = await f.user(tenant)
  admin = await f.tenantAdmin(tenant)
  // every statement prepared from here on, by its text
  proto.prepare = function (this: unknown, sql: string) {
    prepared.push(sql)
    return original.call(this, sql)
  }
})
afterAll(async () => {
  proto.prepare = original
  await t.close()
})

const readsTenants = () => prepared.filter((sql) => /\bfrom\s+"tenants"/i.test(sql))

test('bearer routes of several modules answer without reading the tenants table again', async () => {
  const as = (u: SignedInUser) => ({ token: u.accessToken })
  const calls: Array<[string, Promise<{ status: number }>]> = [
    ['GET /v1/mpc/config', f.api.get('/v1/mpc/config', as(user))],
    ['GET /v1/wallets/', f.api.get('/v1/wallets/', as(user))],
    ['GET /v1/users/{id}', f.api.get(`/v1/users/${user.id}`, as(user))],
    ['GET /v1/agent-payments/agents', f.api.get('/v1/agent-payments/agents', as(admin))],
    ['GET /v1/agent-payments/policies', f.api.get('/v1/agent-payments/policies', as(admin))],
  ]
  for (const [name, call] of calls) expect(`${name} ${(await call).status}`).toBe(`${name} 200`)
  expect(prepared.length).toBeGreaterThan(0)
  expect(readsTenants()).toEqual([])
})
