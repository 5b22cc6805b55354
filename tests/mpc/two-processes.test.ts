/**
 * The relay across processes (issue 26): two API processes on embedded replicas of one real
 * sqld and a worker on the primary. The device talks to edge A, the backup to edge B, and the
 * worker's service party to edge B (MPC_RELAY_URL): every round's messages are written on one
 * process and read on another. The wallet registered on A signs a send through B that
 * confirms on the local chain.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { parseEther, type Address } from 'viem'
import { runDkg, runSign } from '@/client/mpc-party'
import { Api } from '@tests/helpers/client'
import { PROCESS_ADMIN, type RunningProcess } from '@tests/helpers/process'
import { startSqld, type Sqld } from '@tests/helpers/sqld'
import { reader } from '@tests/transactions/helpers'
import { startLocalChain, type LocalChain } from '@tests/helpers/evm-node'
import { startEdge, startOnPrimary } from '../replication/helpers'
import { until } from './world'

let sqld: Sqld
let chain: LocalChain
let edgeA: RunningProcess
let edgeB: RunningProcess
let worker: RunningProcess
const TO: Address = '0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0003'

beforeAll(async () => {
  sqld = await startSqld()
  chain = await startLocalChain({ chainId: 11155111, dbPath: mkdtempSync(join(sqld.dir, 'chain-')) })
  const env = { RPC_URL_SEPOLIA: chain.url, RPC_TIMEOUT_MS: '3000', DATABASE_SYNC_INTERVAL_MS: '5000' }
  ;[edgeA, edgeB] = await Promise.all([startEdge(sqld, env), startEdge(sqld, env)])
  worker = await startOnPrimary(sqld, { ...env, SLIPWAY_ROLE: 'worker', MPC_RELAY_URL: edgeB.url })
}, 60_000)
afterAll(async () => {
  await Promise.all([edgeA, edgeB, worker].filter(Boolean).map((p) => p.stop()))
  await chain?.stop()
  await sqld?.stop()
})

test('DKG and a signature with each party on another process; the send confirms', async () => {
  const a = new Api(edgeA.url)
  const b = new Api(edgeB.url)
  const admin = (await a.post('/v1/auth/admin/login', PROCESS_ADMIN)).body.accessToken
  const tenant = (await a.post('/v1/admin/tenants', { name: 'mpc-two-processes', settings: { walletMode: 'mpc' } }, { token: admin })).body
  const reg = await a.post('/v1/auth/register', { username: 'mpc2p', email: 'mpc2p@example.com', password: 'Passw0rd-long' }, { signedBy: tenant })
  expect(reg.status).toBe(201)
  const token = reg.body.accessToken as string
  const start = await a.post('/v1/mpc/wallets/dkg/start', { chain: 'sepolia' }, { token })
  expect(start.status).toBe(200)
  const id = start.body.sessionId as string
  const [device, backup] = await Promise.all([
    runDkg({ baseUrl: edgeA.url, token, roundTimeoutMs: 30_000, engine: process.env.MPC_ENGINE! }, id, 0),
    runDkg({ baseUrl: edgeB.url, token, roundTimeoutMs: 30_000, engine: process.env.MPC_ENGINE! }, id, 2),
  ])
  expect(device.publicKey).toBe(backup.publicKey)
  await until(() => b.get(`/v1/mpc/relay/session/${id}/results`, { token }), (r) => r.body.status === 'completed')
  const wallet = await a.post('/v1/mpc/wallets', { sessionId: id }, { token })
  expect(wallet.status).toBe(200)
  await chain.sendNative(wallet.body.address, parseEther('1'))
  const prep = await b.post('/v1/transactions/', { walletId: wallet.body.id, chain: 'sepolia', toAddress: TO, amount: '1000000000000000' }, { token })
  expect(prep.status).toBe(201)
  const sign = await a.post(`/v1/mpc/wallets/${wallet.body.id}/sign/start`, { preparedTransactionId: prep.body.preparedTransactionId }, { token })
  expect(sign.status).toBe(200)
  await runSign({ baseUrl: edgeA.url, token, roundTimeoutMs: 30_000, engine: process.env.MPC_ENGINE! }, sign.body.sessionId, 0, device.keyshare)
  const done = await until(() => a.get(`/v1/mpc/relay/session/${sign.body.sessionId}/results`, { token }), (r) => r.body.txHash !== null)
  await until(() => b.get(`/v1/transactions/${done.body.transactionId}/status`, { token }), (r) => r.body.status === 'confirmed')
  expect(await reader(chain.url).balance(TO)).toBe(1_000_000_000_000_000n)
}, 90_000)
