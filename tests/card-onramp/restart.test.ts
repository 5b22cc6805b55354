/**
 * The card onramp sandbox across a restart of the Slipway process (a separate process on a
 * SQLite file, killed with SIGKILL): its sessions are kept (the hosted page and its buttons
 * answer after the restart), and what it owed Slipway when it died is done at the next start:
 * a session killed while completing is completed, and an event saved but not yet posted reaches
 * Slipway. The rows are left as a kill leaves them: `completing` set, or a change saved as
 * `pending` before its event left (provider.ts, repo.ts).
 */
import { afterAll, expect, test } from 'bun:test'
import { createClient } from '@libsql/client'
import { join } from 'node:path'
import { orThrow, SlipwayClient } from '@/client'
import { PROCESS_ADMIN, startProcess, type RunningProcess } from '@tests/helpers/process'
import { TEST_JWT_SECRET, TEST_MASTER_KEY } from '@tests/helpers/app'

const cmd = [process.execPath, join(import.meta.dir, '../../src/index.ts')]
const env = { JWT_SECRET: TEST_JWT_SECRET, MASTER_KEY: TEST_MASTER_KEY, NODE_ENV: 'development', HIBP_ON_ERROR: 'allow', HIBP_BASE_URL: 'http://127.0.0.1:9' }
let p: RunningProcess | undefined
afterAll(async () => { await p?.stop('SIGKILL') })

test('sessions and their owed deliveries survive SIGKILL: completed, events posted, buttons answering after the restart', async () => {
  p = await startProcess(cmd, { env })
  const admin = new SlipwayClient({ baseUrl: p.url })
  orThrow(await admin.adminLogin(PROCESS_ADMIN))
  const tenant = orThrow(await admin.createTenant({ name: 'Card Restart Co' }))
  orThrow(await admin.api.PATCH('/v1/admin/tenants/{id}', { params: { path: { id: tenant.id } }, body: { settings: { cardOnramp: { enabled: true, sandbox: { connected: true } } } } }))
  const creds = { apiKey: tenant.apiKey, apiSecret: tenant.apiSecret }
  const user = new SlipwayClient({ baseUrl: p.url, tenant: creds })
  orThrow(await user.register({ username: 'carol', email: 'carol@example.com', password: 'Str0ng-Passw0rd' }))
  const wallet = orThrow(await user.api.POST('/v1/wallets/', { body: { chain: 'ethereum', isTestnet: true } }))
  const open = async () => orThrow(await user.api.POST('/v1/ramp/card/sessions', { body: { walletId: wallet.id, sourceCurrency: 'eur', sourceAmount: '20.00' } }))
  const press = async (url: string, providerId: string, action: string) => (await fetch(`${url}/sandbox/card-onramp/session/${providerId}/${action}`, { method: 'POST' })).status
  const [a, b, c] = [await open(), await open(), await open()]
  for (const s of [a, b]) expect(await press(p.url, s.providerSessionId!, 'pay')).toBe(200)

  // killed: A while its delivery was being made, B after its completion was saved but before its event left
  const dir = p.dir
  await p.stop('SIGKILL')
  const db = createClient({ url: `file:${dir}/slipway.db` })
  await db.execute({ sql: 'update sandbox_card_onramp_sessions set completing = 1 where id = ?', args: [a.providerSessionId!] })
  const row = (await db.execute({ sql: 'select body from sandbox_card_onramp_sessions where id = ?', args: [b.providerSessionId!] })).rows[0]!
  const body = JSON.parse(String(row.body))
  const hashB = `0x${'b'.repeat(64)}`
  body.status = 'fulfillment_complete'
  body.transaction_details.transaction_id = hashB
  await db.execute({ sql: 'update sandbox_card_onramp_sessions set body = ?, pending = 1 where id = ?', args: [JSON.stringify(body), b.providerSessionId!] })
  db.close()

  p = await startProcess(cmd, { env, dir })
  const again = new SlipwayClient({ baseUrl: p.url, tenant: creds })
  orThrow(await again.login({ username: 'carol', password: 'Str0ng-Passw0rd' }))
  const read = async (id: string) => orThrow(await again.api.GET('/v1/ramp/card/sessions/{id}', { params: { path: { id } } }))
  const deadline = Date.now() + 20_000
  let [ra, rb] = [await read(a.id), await read(b.id)]
  while ((ra.status !== 'fulfillment_complete' || rb.status !== 'fulfillment_complete') && Date.now() < deadline) {
    await Bun.sleep(200)
    ;[ra, rb] = [await read(a.id), await read(b.id)]
  }
  expect([ra.status, rb.status]).toEqual(['fulfillment_complete', 'fulfillment_complete'])
  expect(ra.transactionId).toMatch(/^0x[0-9a-f]{64}$/)
  expect(rb.transactionId).toBe(hashB)

  // a session opened before the restart: its page and buttons answer, and its event reaches Slipway
  expect((await fetch(`${p.url}/sandbox/card-onramp/session/${c.providerSessionId}`)).status).toBe(200)
  expect(await press(p.url, c.providerSessionId!, 'pay')).toBe(200)
  expect((await read(c.id)).status).toBe('fulfillment_processing')
  // nothing left owed
  const after = createClient({ url: `file:${dir}/slipway.db` })
  const owed = await after.execute('select count(*) as n from sandbox_card_onramp_sessions where pending = 1 or completing = 1')
  after.close()
  expect(Number(owed.rows[0]!.n)).toBe(0)
}, 90_000)
