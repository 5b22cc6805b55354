/**
 * Statuses settle across a restart: the app runs as a child process on a file database
 * (`bun src/index.ts`, RPC_URL_ETHEREUM pointing at an anvil node started here), sends while
 * the node's miner is stopped, is killed with SIGKILL, and is started again after the
 * node mined them. Only the background job reads the chain here (the test reads the
 * stored record, which does not), so the confirmations it sees are the job's work.
 * Then two processes on one database file send concurrently from one wallet: the nonce
 * counter in the database keeps their nonces distinct and consecutive.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPublicClient, createWalletClient, http, parseEther, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { PROCESS_ADMIN, startProcess } from '@tests/helpers/process'
import { Api, signedHeaders } from '@tests/helpers/client'
import { FUNDER_KEY, startLocalChain, type LocalChain } from '@tests/helpers/evm-node'
import { waitFor } from './helpers'

let dir: string
let node: LocalChain
let rpcUrl: string

/** The app as a child process on this test's database file, with PROCESS_ADMIN as its admin (see tests/helpers/process.ts). */
const startApp = (extraEnv: Record<string, string> = {}) => startProcess([process.execPath, 'src/index.ts'], {
  dir,
  env: {
    NODE_ENV: 'test',
    MASTER_KEY: Buffer.alloc(32, 5).toString('base64'),
    JWT_SECRET: 'restart-test-jwt-secret-0123456789abcdef',
    RPC_URL_ETHEREUM: rpcUrl,
    RPC_TIMEOUT_MS: '3000',
    ...extraEnv,
  },
})

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'slipway-tx-restart-'))
  // With mining paused, a submission is answered at once and waits in the node's pool.
  node = await startLocalChain({ chainId: 1 })
  rpcUrl = node.url
}, 30_000)
afterAll(async () => {
  await node.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('restart with pending transactions', () => {
  test('kill -9 while sends are pending; after the restart the job settles them as confirmed', async () => {
    const pub = createPublicClient({ transport: http(rpcUrl) })
    // A kill between the worker's claim of due jobs and their queueing leaves them claimed for the
    // lease (60 s by default) before they are due again: short here, so the wait below covers it.
    const lease = { JOB_CLAIM_LEASE_MS: '2000' }
    let app = await startApp(lease)
    const ids: string[] = []
    let token = ''
    try {
      const api = new Api(app.url)
      const admin = (await api.post('/v1/auth/admin/login', PROCESS_ADMIN)).body.accessToken
      const tenant = (await api.post('/v1/admin/tenants', { name: 'restart-tenant', settings: {} }, { token: admin })).body
      const body = JSON.stringify({ username: 'restart_user', password: 'Passw0rd-long', email: 'r@example.com' })
      const ts = String(Math.floor(Date.now() / 1000))
      const reg = await fetch(`${app.url}/v1/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json', ...signedHeaders(tenant, 'POST', '/v1/auth/register', body, ts) }, body })
      expect(reg.status).toBe(201)
      token = ((await reg.json()) as { accessToken: string }).accessToken
      const wallet = await api.post('/v1/wallets/', { chain: 'ethereum' }, { token })
      expect(wallet.status).toBe(201)
      const funder = createWalletClient({ account: privateKeyToAccount(FUNDER_KEY as Hex), transport: http(rpcUrl), chain: { id: 1, name: 'local', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } } })
      await pub.waitForTransactionReceipt({ hash: await funder.sendTransaction({ to: wallet.body.address, value: parseEther('1') }) })
      await node.pauseMining()
      const to = privateKeyToAccount(generatePrivateKey()).address
      for (let i = 1; i <= 3; i++) {
        const res = await api.post('/v1/transactions/', { walletId: wallet.body.id, chain: 'ethereum', toAddress: to, amount: String(i) }, { token })
        expect(res.status).toBe(201)
        expect(res.body.status).toBe('pending')
        ids.push(res.body.id)
      }
      // Let the first job runs see them pending and reschedule themselves, then die.
      await Bun.sleep(1500)
      for (const id of ids) expect((await api.get(`/v1/transactions/${id}`, { token })).body.status).toBe('pending')
    } finally {
      app.proc.kill(9)
      await app.proc.exited
    }
    await node.resumeMining()
    app = await startApp(lease)
    try {
      const api = new Api(app.url)
      for (const id of ids) {
        const r = await waitFor(() => api.get(`/v1/transactions/${id}`, { token }), (x) => x.body?.status === 'confirmed', 20_000)
        expect(r.body.status).toBe('confirmed')
        expect(r.body.blockNumber).toBeGreaterThan(0)
      }
    } finally {
      app.proc.kill('SIGTERM')
      await app.proc.exited
    }
  }, 90_000)
})

describe('two API processes on one database', () => {
  test('concurrent sends from one wallet through both processes never share or skip a nonce', async () => {
    // A fresh node, a block per transaction: across two processes nonces may reach the node
    // out of order, and it holds a later one until the gap is filled.
    const eager = await startLocalChain({ chainId: 1 })
    const strictUrl = rpcUrl
    rpcUrl = eager.url
    const pub = createPublicClient({ transport: http(rpcUrl) })
    const first = await startApp()
    // The second process serves HTTP only (one queue worker is enough for the shared outbox).
    const second = await startApp({ SLIPWAY_ROLE: 'api' })
    try {
      const a = new Api(first.url)
      const b = new Api(second.url)
      const admin = (await a.post('/v1/auth/admin/login', PROCESS_ADMIN)).body.accessToken
      const tenant = (await a.post('/v1/admin/tenants', { name: 'two-process-tenant', settings: {} }, { token: admin })).body
      const body = JSON.stringify({ username: 'two_process_user', password: 'Passw0rd-long', email: 'two@example.com' })
      const reg = await fetch(`${first.url}/v1/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json', ...signedHeaders(tenant, 'POST', '/v1/auth/register', body, String(Math.floor(Date.now() / 1000))) }, body })
      const token = ((await reg.json()) as { accessToken: string }).accessToken
      const wallet = (await a.post('/v1/wallets/', { chain: 'ethereum' }, { token })).body
      const funder = createWalletClient({ account: privateKeyToAccount(FUNDER_KEY as Hex), transport: http(rpcUrl), chain: { id: 1, name: 'local', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } } })
      await pub.waitForTransactionReceipt({ hash: await funder.sendTransaction({ to: wallet.address, value: parseEther('1') }) })
      const to = privateKeyToAccount(generatePrivateKey()).address
      const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? b : a).post('/v1/transactions/', { walletId: wallet.id, chain: 'ethereum', toAddress: to, amount: String(i + 1) }, { token })))
      expect(answers.map((r) => r.status)).toEqual(Array(16).fill(201))
      expect(answers.map((r) => r.body.nonce as number).sort((x, y) => x - y)).toEqual(Array.from({ length: 16 }, (_, i) => i))
      for (const r of answers) {
        const done = await waitFor(() => a.get(`/v1/transactions/${r.body.id}`, { token }), (x) => x.body?.status === 'confirmed', 30_000)
        expect(done.body.status).toBe('confirmed')
      }
      expect(await pub.getTransactionCount({ address: wallet.address })).toBe(16)
    } finally {
      for (const c of [first, second]) {
        c.proc.kill('SIGTERM')
        await c.proc.exited
      }
      rpcUrl = strictUrl
      await eager.stop()
    }
  }, 120_000)
})
