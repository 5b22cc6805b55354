/**
 * An execution's reads kept for the next one of the same agent and merchant (issue 40,
 * src/modules/agent-payments/executions/read-keep.ts), and a refusal written as one batch
 * (reserve.ts), on a file and on a remote primary:
 * - the second execution reads nothing before its write batch (on a server: no read request);
 * - whatever changed since the reads were kept is seen: an agent paused, a policy's limit
 *   lowered, a webhook subscription added (the event reaches it), a key used by an execution this
 *   process never saw (answered as that execution, nothing written);
 * - a key this process saw used is answered from one read;
 * - a refusal (a per-transaction limit) is one write batch and no interactive transaction, which
 *   makes the day's running total its next refusal reads.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import type { TestApp } from '@tests/helpers/app'
import type { Factory, SignedInUser, Tenant } from '@tests/helpers/factories'
import { BASE, as, batchWorld } from './batch-world'

for (const where of ['a file', 'a remote primary (sqld)'] as const) describe(`kept reads and refusals in one batch, on ${where}`, () => {
  const { world, agentWith, count } = batchWorld(where, { WEBHOOK_DEV_ROUTES: 'ap-hooks.slipway.test=http://127.0.0.1:9' })
  let t: TestApp
  let f: Factory
  let tenant: Tenant
  let admin: SignedInUser
  let merchantId: string
  beforeAll(() => void ({ t, f, tenant, admin, merchantId } = world))
  const pay = (agentId: string, amount = '1.5', extra: Record<string, unknown> = {}) =>
    f.api.post(`${BASE}/executions`, { agentId, merchantId, amount, currency: 'USDC', rail: 'onchain', ...extra }, as(admin))

  /** what `fn` sends: write batches, interactive transactions, and on a server read batches with their statements */
  async function watched<T>(fn: () => Promise<T>) {
    const db = t.deps.database
    const seen = { batches: 0, writes: 0, reads: [] as number[] }
    const { write, writeBatch, readBatch } = db
    db.write = (w) => { seen.writes++; return write(w) }
    db.writeBatch = (stmts) => { seen.batches++; return writeBatch(stmts) }
    if (readBatch) db.readBatch = (stmts) => { seen.reads.push(stmts.length); return readBatch(stmts) }
    try {
      return { out: await fn(), seen }
    } finally {
      Object.assign(db, { write, writeBatch, readBatch })
    }
  }

  test('the second execution of an agent and merchant reads nothing before its one write batch', async () => {
    const { agentId } = await agentWith([{ interval: 'daily', amount: '100' }])
    const first = await watched(() => pay(agentId))
    expect(first.out.body.status).toBe('requires_approval')
    expect(first.seen.batches).toBe(1)
    if (where !== 'a file') expect(first.seen.reads.length).toBe(1)
    const second = await watched(() => pay(agentId))
    expect(second.out.status).toBe(201)
    expect(second.out.body.status).toBe('requires_approval')
    expect(second.seen).toEqual({ batches: 1, writes: 0, reads: [] })
    expect(await count('ap_approvals', 'agent_id = ?', [agentId])).toBe(2)
  })

  test('an agent paused since: the kept reads fail at the primary, and the execution is judged from reads made now (rejected)', async () => {
    const { agentId } = await agentWith([{ interval: 'daily', amount: '100' }])
    expect((await pay(agentId)).body.status).toBe('requires_approval')
    expect((await f.api.post(`${BASE}/agents/${agentId}/pause`, {}, as(admin))).status).toBe(200)
    const r = await pay(agentId)
    expect(r.status).toBe(201)
    expect(r.body.status).toBe('rejected')
    expect(r.body.reasons.map((x: { code: string }) => x.code)).toContain('AGENT_NOT_ACTIVE')
    // nothing of the failed batch: one approval (the first), two executions
    expect(await count('ap_approvals', 'agent_id = ?', [agentId])).toBe(1)
    expect(await count('ap_executions', 'agent_id = ?', [agentId])).toBe(2)
  })

  test('a policy changed since (its per-transaction limit lowered): rejected', async () => {
    const { agentId, policyId } = await agentWith([{ interval: 'daily', amount: '100' }])
    expect((await pay(agentId)).body.status).toBe('requires_approval')
    const p = await f.api.patch(`${BASE}/policies/${policyId}`, { limits: [{ interval: 'per_transaction', amount: '1' }] }, as(admin))
    expect(p.status).toBe(200)
    const r = await pay(agentId)
    expect(r.body.status).toBe('rejected')
    expect(r.body.policyVersion).toBe(p.body.version)
  })

  test('a webhook subscription added since: the next execution\'s event is queued for it', async () => {
    const { agentId } = await agentWith([{ interval: 'daily', amount: '100' }])
    expect((await pay(agentId)).body.status).toBe('requires_approval')
    const hook = await f.api.post(`${BASE}/webhooks`, { url: 'https://ap-hooks.slipway.test/in', eventTypes: ['agent_payments.execution.created'] }, as(admin))
    expect(hook.status).toBe(201)
    const r = await pay(agentId)
    expect(r.body.status).toBe('requires_approval')
    expect(await count('webhook_deliveries', 'webhook_id = ? AND body LIKE ?', [hook.body.id, `%${r.body.id}%`])).toBe(1)
  })

  test('idempotency keys: one used elsewhere is answered as its execution (nothing written); one seen used here from one read', async () => {
    const { agentId } = await agentWith([{ interval: 'daily', amount: '100' }])
    const first = await pay(agentId, '1.5', { idempotencyKey: 'k-here' })
    expect(first.body.status).toBe('requires_approval')
    // another process's execution with a key: a copy of the first row under another id and key
    const other = crypto.randomUUID()
    const cols = (await t.deps.database.client.execute('SELECT name FROM pragma_table_info(\'ap_executions\')')).rows.map((r) => String(r.name))
    const sel = cols.map((c) => (c === 'id' ? '?' : c === 'idempotency_key' ? '\'k-elsewhere\'' : c === 'status' ? '\'rejected\'' : c)).join(', ')
    await t.deps.database.client.execute({ sql: `INSERT INTO ap_executions (${cols.join(', ')}) SELECT ${sel} FROM ap_executions WHERE id = ?`, args: [other, first.body.id] })
    const executions = await count('ap_executions', 'agent_id = ?', [agentId])
    const elsewhere = await pay(agentId, '2', { idempotencyKey: 'k-elsewhere' })
    expect(elsewhere.status).toBe(200)
    expect(elsewhere.body.id).toBe(other)
    expect(await count('ap_executions', 'agent_id = ?', [agentId])).toBe(executions)
    expect(await count('ap_approvals', 'agent_id = ?', [agentId])).toBe(1)
    const again = await watched(() => pay(agentId, '1.5', { idempotencyKey: 'k-here' }))
    expect(again.out.status).toBe(200)
    expect(again.out.body.id).toBe(first.body.id)
    expect(again.seen.batches + again.seen.writes).toBe(0)
  })

  test('a refusal is one write batch, no interactive transaction, audited once', async () => {
    const { agentId } = await agentWith([{ interval: 'per_transaction', amount: '1' }])
    const r = await watched(() => pay(agentId, '1.5'))
    expect(r.out.status).toBe(201)
    expect(r.out.body.status).toBe('rejected')
    expect(r.out.body.reasons.map((x: { code: string }) => x.code)).toContain('LIMIT_EXCEEDED')
    expect({ batches: r.seen.batches, writes: r.seen.writes }).toEqual({ batches: 1, writes: 0 })
    expect(await count('ap_audit_log', `action = 'execution.created' AND resource_id = ?`, [r.out.body.id])).toBe(1)
    expect(await count('ap_approvals', 'agent_id = ?', [agentId])).toBe(0)
    // the day's running total made by the batch (the next refusal's reasons read it), counting nothing: a rejection does not count
    expect(await count('ap_spend_totals', 'owner_id = ? AND count = 0 AND whole = 0 AND frac = 0 AND overflow = 0', [agentId])).toBe(1)
    const again = await watched(() => pay(agentId, '2'))
    expect(again.out.body.status).toBe('rejected')
    expect({ batches: again.seen.batches, writes: again.seen.writes }).toEqual({ batches: 1, writes: 0 })
    expect(await count('ap_spend_totals', 'owner_id = ?', [agentId])).toBe(1)
  })
})
