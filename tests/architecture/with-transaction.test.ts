/**
 * `withTransaction` (src/context.ts): a verb called inside another verb's write joins that
 * write instead of opening a second, so what both record commits or rolls back together.
 * Shown on a real database file's tables, through the verbs that compose this way: the
 * auth module's session revocation inside a user's deletion.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { withTransaction, type VerbContext } from '@/context'
import { revokeUserSessions } from '@/modules/auth'
import { makeApp, type TestApp } from '../helpers/app'
import { Factory } from '../helpers/factories'

let t: TestApp
let f: Factory
beforeAll(async () => {
  t = await makeApp()
  f = new Factory(t)
})
afterAll(() => t.close())

const live = async (userId: string) =>
  (await t.deps.database.db.all<{ n: number }>(sql`select count(*) as n from refresh_tokens where user_id = ${userId} and revoked_at is null`))[0]!.n

describe('withTransaction', () => {
  test('a verb called with a context that carries the open write joins it: rolled back with its caller', async () => {
    const tenant = await f.tenant()
    const row = { id: (await f.user(tenant)).id, tenant_id: tenant.id }
    // registration signed the user in: one live refresh token
    expect(await live(row.id)).toBeGreaterThan(0)
    const ctx: VerbContext<null> = { deps: t.deps, actor: null, tenant: null, requestId: 'test' }
    const failed = withTransaction(ctx, async (_tx, inWrite) => {
      await revokeUserSessions(inWrite, { id: row.id, tenantId: row.tenant_id }, Date.now())
      // inside the caller's write the revocation is seen...
      expect((await inWrite.tx.all<{ n: number }>(sql`select count(*) as n from refresh_tokens where user_id = ${row.id} and revoked_at is null`))[0]!.n).toBe(0)
      throw new Error('the caller fails after the inner verb ran')
    })
    await expect(failed).rejects.toThrow('the caller fails')
    // ...and rolled back with it: a verb that had opened its own write would have committed
    expect(await live(row.id)).toBeGreaterThan(0)
  })

  test('without an open write the verb opens its own and commits', async () => {
    const tenant = await f.tenant()
    const user = await f.user(tenant)
    expect(await live(user.id)).toBeGreaterThan(0)
    const ctx: VerbContext<null> = { deps: t.deps, actor: null, tenant: null, requestId: 'test' }
    await revokeUserSessions(ctx, { id: user.id, tenantId: tenant.id }, Date.now())
    expect(await live(user.id)).toBe(0)
  })
})
