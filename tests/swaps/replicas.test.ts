/**
 * `Idempotency-Key` on `POST /v1/swap/execute` across two API processes on embedded replicas
 * (edges) of one real sqld, as the replication suite runs them (tests/replication/helpers.ts),
 * against the devnet's gnosis-chiado node and each process's embedded sandbox aggregator: the same key
 * sent 20 times at once, split across both edges, sends once.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { mkdtempSync } from 'node:fs'
import { DEVNET_CHIADO_USDC, giveChiadoGas, startDevnet, type Devnet } from '../../scripts/devnet/chain'
import { Api } from '@tests/helpers/client'
import { PROCESS_ADMIN, type RunningProcess } from '@tests/helpers/process'
import { startSqld, type Sqld } from '@tests/helpers/sqld'
import { waitFor } from '@tests/transactions/helpers'
import { startEdge } from '../replication/helpers'
import { gnosisClients, NATIVE } from '../devnet/gnosis'

let sqld: Sqld
let devnet: Devnet
let edgeA: RunningProcess
let edgeB: RunningProcess

beforeAll(async () => {
  sqld = await startSqld()
  devnet = await startDevnet({ port: 0, dbPath: join(mkdtempSync(join(sqld.dir, 'chain-')), 'chain'), blockTime: 0 })
  const env = { ...devnet.env, RPC_TIMEOUT_MS: '3000', DATABASE_SYNC_INTERVAL_MS: '5000' }
  ;[edgeA, edgeB] = await Promise.all([startEdge(sqld, env), startEdge(sqld, env)])
}, 60_000)
afterAll(async () => {
  await Promise.all([edgeA, edgeB].filter(Boolean).map((p) => p.stop()))
  await devnet?.stop()
  await sqld?.stop()
})

test('the same key sent 20 times at once across two edges: one send, one record', async () => {
  const a = new Api(edgeA.url)
  const b = new Api(edgeB.url)
  const admin = (await a.post('/v1/auth/admin/login', PROCESS_ADMIN)).body.accessToken
  const tenant = (await a.post('/v1/admin/tenants', { name: 'swap-replicas' }, { token: admin })).body
  const reg = await a.post('/v1/auth/register', { username: 'swapper', email: 'swapper@example.com', password: 'Swap-passw0rd' }, { signedBy: tenant })
  expect(reg.status).toBe(201)
  const token = reg.body.accessToken as string
  const w = (await a.post('/v1/wallets/', { chain: 'gnosis', isTestnet: true }, { token })).body
  await giveChiadoGas(devnet.chiadoUrl, w.address, 5n * 10n ** 18n)
  const q = await a.post('/v1/swap/quote', { walletId: w.id, fromChain: 'gnosis', toChain: 'gnosis', isTestnet: true, fromToken: NATIVE, toToken: DEVNET_CHIADO_USDC, fromAmount: String(10n ** 17n) }, { token })
  expect(q.status).toBe(200)
  const headers = { 'idempotency-key': crypto.randomUUID() }
  const call = (x: Api) => x.post('/v1/swap/execute', { quoteId: q.body.quoteId }, { token, headers })
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i % 2 ? a : b)))
  expect(answers.map((r) => r.status).filter((s) => s !== 201 && s !== 409)).toEqual([])
  const ran = answers.filter((r) => r.status === 201 && r.headers.get('idempotency-replayed') === 'false')
  expect(ran).toHaveLength(1)
  for (const r of answers) {
    if (r.status === 409) expect(r.body.details).toEqual({ code: 'IDEMPOTENCY_IN_PROGRESS' })
    else if (r !== ran[0]) expect(r.body.id).toBe(ran[0]!.body.id)
  }
  for (const x of [a, b]) {
    const replay = await call(x)
    expect({ status: replay.status, replayed: replay.headers.get('idempotency-replayed'), id: replay.body.id }).toEqual({ status: 201, replayed: 'true', id: ran[0]!.body.id })
  }
  const chain = gnosisClients(devnet.chiadoUrl)
  await waitFor(() => chain.pub.getTransactionCount({ address: w.address }), (n) => n >= 1)
  await Bun.sleep(500)
  expect(await chain.pub.getTransactionCount({ address: w.address })).toBe(1)
  expect(await chain.balance(DEVNET_CHIADO_USDC, w.address)).toBe(100_000n)
  const list = await waitFor(() => b.get('/v1/transactions/', { token }), (r) => r.body?.pagination?.total >= 1, 10_000)
  expect(list.body.pagination.total).toBe(1)
}, 60_000)
