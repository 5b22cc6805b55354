/**
 * An execution in one write batch (issue 40, src/modules/agent-payments/executions/reserve.ts):
 * - the SQL that sums decimal amounts as integer limbs is exact at the last unit of 1e-18, with
 *   carries across the limbs, and fails (never passes) when a whole part is too long to sum;
 * - an execution waiting for an approval is one write batch and no interactive transaction;
 * - when a limit fills between the reads and the batch, the batch writes nothing (no execution,
 *   audit entry, approval or job of it) and the execution is judged again: rejected.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createClient } from '@libsql/client'
import { drizzle } from 'drizzle-orm/libsql'
import { sql } from 'drizzle-orm'
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { toUnits } from '@/modules/agent-payments/policies/policy'
import * as repo from '@/modules/agent-payments/repo'
import type { TestApp } from '@tests/helpers/app'
import type { Factory, SignedInUser, Tenant } from '@tests/helpers/factories'
import { BASE, as, batchWorld } from './batch-world'

describe('running totals: sums of decimal strings in SQL', () => {
  const client = createClient({ url: ':memory:' })
  const dialect = new SQLiteSyncDialect()
  const w = { start: 0, end: null }
  beforeAll(async () => {
    await client.execute(`CREATE TABLE tenants (id text PRIMARY KEY)`)
    await client.execute(`INSERT INTO tenants VALUES ('t')`)
    await client.execute(`CREATE TABLE ap_executions (id text NOT NULL, tenant_id text, agent_id text, mandate_id text, status text, amount text, counted_at integer, created_at integer)`)
    // the table and its triggers as the migration makes them
    for (const stmt of readFileSync(join(import.meta.dir, '../../drizzle/0033_ap_spend_totals.sql'), 'utf8').split('--> statement-breakpoint')) await client.execute(stmt)
  })
  afterAll(() => client.close())
  let n = 0
  const put = async (agent: string, ...amounts: string[]) => {
    for (const a of amounts) await client.execute({ sql: `INSERT INTO ap_executions VALUES (?, 't', ?, NULL, 'processing', ?, 10, 10)`, args: [`e${n++}`, agent, a] })
  }
  /** whether `units` more fits under `max`: the window's row made first (from the rows there) when missing, as a batch does */
  const fits = async (agent: string, max: bigint, units = 0n) => {
    for (const st of repo.ensureTotalStatements('t', { kind: 'agent', id: agent }, w)) await client.execute(st)
    const q = dialect.sqlToQuery(sql`SELECT ${repo.totalRoomFor('t', { kind: 'agent', id: agent }, w, units, max)} AS ok`)
    return Number((await client.execute({ sql: q.sql, args: q.params as never[] })).rows[0]!.ok) === 1
  }

  test('exact at the last unit, carries across limbs, whether made from the rows or kept by the triggers', async () => {
    await put('a', '0.999999999999999999', '0.999999999999999999')
    const two = toUnits('0.999999999999999999') * 2n
    expect(await fits('a', two)).toBe(true)
    expect(await fits('a', two - 1n)).toBe(false)
    // the row made: the rest is added by the insert trigger
    await put('a', '1.000000001', '12')
    const sum = two + toUnits('1.000000001') + toUnits('12')
    expect(await fits('a', sum)).toBe(true)
    expect(await fits('a', sum - 1n)).toBe(false)
    expect(await fits('a', sum + 1n)).toBe(true)
    expect(await fits('a', toUnits('16'), toUnits('1'))).toBe(false)
    expect(await fits('a', toUnits('17'), toUnits('1'))).toBe(true)
  })

  test('no rows: anything from 0 fits; another status or agent does not count', async () => {
    expect(await fits('none', 0n)).toBe(true)
    await client.execute(`INSERT INTO ap_executions VALUES ('x1', 't', 'b', NULL, 'rejected', '5', 10, 10)`)
    await put('b', '0.5')
    expect(await fits('b', toUnits('0.5'))).toBe(true)
    expect(await fits('b', toUnits('0.499999'))).toBe(false)
  })

  test('a whole part of more than 15 digits fails the condition, whatever the room', async () => {
    await put('c', '1234567890123456')
    expect(await fits('c', toUnits('999999999999999999999'))).toBe(false)
    await put('d', '123456789012345')
    expect(await fits('d', toUnits('123456789012345'))).toBe(true)
    // made before: the trigger marks it past exact sums, and it stays failing
    await put('d', '1234567890123456')
    expect(await fits('d', toUnits('999999999999999999999'))).toBe(false)
  })
})

for (const where of ['a file', 'a remote primary (sqld)'] as const) describe(`an execution as one write batch, on ${where}`, () => {
  const world = batchWorld(where)
  const { count } = world
  const agentWith = async (limits: Array<{ interval: string; amount: string }>) => (await world.agentWith(limits)).agentId
  let t: TestApp
  let f: Factory
  let tenant: Tenant
  let admin: SignedInUser
  let merchantId: string
  beforeAll(() => void ({ t, f, tenant, admin, merchantId } = world.world))

  test('waiting for an approval: one batch, no interactive transaction', async () => {
    const agentId = await agentWith([{ interval: 'daily', amount: '10' }])
    const db = t.deps.database
    const seen = { batches: 0, writes: 0 }
    const { write, writeBatch } = db
    db.write = (fn) => { seen.writes++; return write(fn) }
    db.writeBatch = (stmts) => { seen.batches++; return writeBatch(stmts) }
    try {
      const r = await f.api.post(`${BASE}/executions`, { agentId, merchantId, amount: '1.5', currency: 'USDC', rail: 'onchain' }, as(admin))
      expect(r.status).toBe(201)
      expect(r.body.status).toBe('requires_approval')
      expect(seen).toEqual({ batches: 1, writes: 0 })
      expect(await count('ap_approvals', 'execution_id = ?', [r.body.id])).toBe(1)
      expect(await count('ap_audit_log', 'resource_id = ?', [r.body.id])).toBe(1)
      const approvalId = (await t.deps.database.client.execute({ sql: 'SELECT id FROM ap_approvals WHERE execution_id = ?', args: [r.body.id] })).rows[0]!.id
      expect(await count('outbox', 'topic = ? AND payload LIKE ?', ['agent_payments.approval.expire', `%${approvalId}%`])).toBe(1)
    } finally {
      db.write = write
      db.writeBatch = writeBatch
    }
  })

  test('a limit filled between the reads and the batch: nothing of the batch is written, and the execution is judged again (rejected)', async () => {
    const agentId = await agentWith([{ interval: 'daily', amount: '2' }])
    const db = t.deps.database
    const { writeBatch } = db
    let filled = false
    db.writeBatch = async (stmts) => {
      if (!filled) {
        filled = true
        // another request reserves 1.5 of the 2 first
        const first = await f.api.post(`${BASE}/executions`, { agentId, merchantId, amount: '1.5', currency: 'USDC', rail: 'onchain' }, as(admin))
        expect(first.body.status).toBe('requires_approval')
      }
      return writeBatch(stmts)
    }
    try {
      const r = await f.api.post(`${BASE}/executions`, { agentId, merchantId, amount: '1', currency: 'USDC', rail: 'onchain' }, as(admin))
      expect(r.status).toBe(201)
      expect(r.body.status).toBe('rejected')
      expect(r.body.reasons.map((x: { code: string }) => x.code)).toContain('LIMIT_EXCEEDED')
    } finally {
      db.writeBatch = writeBatch
    }
    // the agent's executions: the 1.5 waiting and the 1 rejected; one approval, two creations audited, nothing else
    expect(await count('ap_executions', 'agent_id = ?', [agentId])).toBe(2)
    expect(await count('ap_executions', 'agent_id = ? AND status = ?', [agentId, 'requires_approval'])).toBe(1)
    expect(await count('ap_approvals', 'agent_id = ?', [agentId])).toBe(1)
    expect(await count('ap_audit_log', `action = 'execution.created' AND resource_id IN (SELECT id FROM ap_executions WHERE agent_id = ?)`, [agentId])).toBe(2)
    expect(await count('ap_audit_log', `action = 'approval.created' AND resource_id IN (SELECT id FROM ap_approvals WHERE agent_id = ?)`, [agentId])).toBe(1)
  })

  test('the spend summed in SQL equals the rows added up in JavaScript, a waiting one left out when asked', async () => {
    const agentId = await agentWith([{ interval: 'daily', amount: '1000' }])
    const ids: string[] = []
    for (const amount of ['0.000001', '1.999999', '3.5', '0.25']) {
      const r = await f.api.post(`${BASE}/executions`, { agentId, merchantId, amount, currency: 'USDC', rail: 'onchain' }, as(admin))
      expect(r.body.status).toBe('requires_approval')
      ids.push(r.body.id)
    }
    const db = t.deps.database.db
    const now = t.clock.now()
    const windows = [{ start: 0, end: null }, { start: now - 60_000, end: now + 60_000 }, { start: now + 60_000, end: null }]
    const rows = await repo.countedExecutions(db, tenant.id, agentId, 0)
    const total = rows.reduce((n, r) => n + toUnits(r.amount), 0n)
    expect(total).toBe(toUnits('5.75'))
    expect(await repo.countedSums(db, tenant.id, agentId, windows)).toEqual([{ units: total, count: 4 }, { units: total, count: 4 }, { units: 0n, count: 0 }])
    expect((await repo.countedSums(db, tenant.id, agentId, windows, ids[2]))![0]).toEqual({ units: toUnits('2.25'), count: 3 })
  })
})

