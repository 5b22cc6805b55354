/**
 * A Solana send's submission with a fault injected (the JSON-RPC fault proxy in front of the
 * LiteSVM-backed Solana node, which executes what reaches it). Only a connection that was never made (refused, no such host) or a
 * rate-limit refusal means nothing was submitted. A connection closed after the request left,
 * a time limit or an HTTP error status may have reached the node: the send stays pending with
 * its Idempotency-Key bound, a same-key retry answers it and sends nothing, and the status job
 * decides (confirmed if the network has it; failed once its blockhash's last valid height passes).
 * An error answer is a refusal only when the node does not have the signature after all.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Keypair } from '@solana/web3.js'
import { SolanaClients } from '@/adapters/chain/solana'
import type { ChainEndpoint } from '@/adapters/chain/port'
import { systemClock } from '@/lib/clock'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { startRpcFaultProxy, type RpcFaultProxy } from '@tests/helpers/rpc-fault-proxy'
import { startFakeSolana, type FakeSolana } from '@tests/fakes/solana-rpc'
import { waitFor } from './helpers'

let t: TestApp
let f: Factory
let tenant: Tenant
let sol: FakeSolana
let proxy: RpcFaultProxy

beforeAll(async () => {
  sol = startFakeSolana()
  proxy = await startRpcFaultProxy(sol.url)
  t = await makeApp({ clock: systemClock, jobs: true, env: { RPC_TIMEOUT_MS: '1500' } })
  f = new Factory(t)
  tenant = await f.tenant({ chains: { rpc: { solana: proxy.url } } })
})
afterAll(async () => {
  await t.close()
  proxy.stop()
  sol.stop()
})

const send = (u: SignedInUser, body: unknown, key: string) => f.api.post('/v1/transactions/', body, { token: u.accessToken, headers: { 'idempotency-key': key } })
const stored = (u: SignedInUser, id: string) => f.api.get(`/v1/transactions/${id}`, { token: u.accessToken })
const history = async (u: SignedInUser) => (await f.api.get('/v1/transactions/', { token: u.accessToken })).body.data as Array<{ id: string; status: string }>

async function sender() {
  const u = await f.user(tenant)
  const res = await f.api.post('/v1/wallets/', { chain: 'solana' }, { token: u.accessToken })
  expect(res.status).toBe(201)
  sol.fund(res.body.address, 10_000_000_000n)
  return { u, w: res.body as { id: string; address: string } }
}

describe('after the request left: the send stays pending, the key stays bound', () => {
  const what = { cut: 'the connection closed before its answer', stall: 'never answered', lose: 'a gateway answered an error' }
  for (const fault of ['cut', 'stall', 'lose'] as const) {
    test(`the node took it and ${what[fault]}: 201 pending; a same-key retry answers it and sends nothing; the job confirms it`, async () => {
      const { u, w } = await sender()
      const body = { walletId: w.id, chain: 'solana', toAddress: Keypair.generate().publicKey.toBase58(), amount: '1000000' }
      const key = crypto.randomUUID()
      const [submitted, received] = [proxy.submissions, sol.sent.length]
      const first = await proxy.during(fault, () => send(u, body, key))
      expect({ status: first.status, body: first.body }).toMatchObject({ status: 201, body: { status: 'pending', txHash: expect.any(String) } })
      expect(sol.sent.slice(received).map((s) => s.signature)).toEqual([first.body.txHash])
      const retry = await send(u, body, key)
      expect(retry.status).toBe(201)
      expect(retry.headers.get('idempotency-replayed')).toBe('true')
      expect(retry.body).toMatchObject({ id: first.body.id, txHash: first.body.txHash })
      // nothing sent again: one submission, one transaction on the node
      expect(proxy.submissions - submitted).toBe(1)
      expect(sol.sent.length - received).toBe(1)
      expect((await history(u)).map((x) => x.id)).toEqual([first.body.id])
      const done = await waitFor(() => stored(u, first.body.id), (r) => r.body?.status !== 'pending')
      expect(done.body.status).toBe('confirmed')
      // executed once on the SVM
      expect(sol.lamports(body.toAddress)).toBe(1_000_000n)
    }, 20_000)
  }

  test('a gateway answered an error and passed it on later (the node has no status for it yet): 201 pending; a same-key retry sends nothing; the job confirms it', async () => {
    const { u, w } = await sender()
    const body = { walletId: w.id, chain: 'solana', toAddress: Keypair.generate().publicKey.toBase58(), amount: '1500000' }
    const key = crypto.randomUUID()
    const [submitted, received] = [proxy.submissions, sol.sent.length]
    proxy.lateMs = 1000
    const first = await proxy.during('late', () => send(u, body, key))
    expect({ status: first.status, body: first.body }).toMatchObject({ status: 201, body: { status: 'pending', txHash: expect.any(String) } })
    const retry = await send(u, body, key)
    expect(retry.status).toBe(201)
    expect(retry.headers.get('idempotency-replayed')).toBe('true')
    expect(retry.body).toMatchObject({ id: first.body.id, txHash: first.body.txHash })
    expect(proxy.submissions - submitted).toBe(1)
    // the gateway's queued copy reaches the node: one transaction, the send's
    await waitFor(async () => sol.sent.length, (n) => n > received, 5_000)
    expect(sol.sent.slice(received).map((s) => s.signature)).toEqual([first.body.txHash])
    const done = await waitFor(() => stored(u, first.body.id), (r) => r.body?.status !== 'pending')
    expect(done.body.status).toBe('confirmed')
    expect(sol.lamports(body.toAddress)).toBe(1_500_000n)
    expect(sol.sent.length - received).toBe(1)
    expect((await history(u)).map((x) => x.id)).toEqual([first.body.id])
  }, 20_000)

  test('the connection closed before the node read it: pending, the retry sends nothing; the job fails it once its blockhash expires; the key still answers it, never sends', async () => {
    const { u, w } = await sender()
    const body = { walletId: w.id, chain: 'solana', toAddress: Keypair.generate().publicKey.toBase58(), amount: '2000000' }
    const key = crypto.randomUUID()
    const [submitted, received] = [proxy.submissions, sol.sent.length]
    const first = await proxy.during('drop', () => send(u, body, key))
    expect({ status: first.status, body: first.body }).toMatchObject({ status: 201, body: { status: 'pending' } })
    const retry = await send(u, body, key)
    expect(retry.body).toMatchObject({ id: first.body.id, txHash: first.body.txHash })
    expect(proxy.submissions - submitted).toBe(1)
    expect(sol.sent.length).toBe(received)
    // 151 blocks pass on the SVM: its blockhash is no longer valid
    sol.svm.advance(151)
    const done = await waitFor(() => stored(u, first.body.id), (r) => r.body?.status !== 'pending')
    expect(done.body).toMatchObject({ status: 'failed', failureReason: expect.stringContaining('blockhash expired') })
    expect(sol.svm.statuses.has(first.body.txHash)).toBe(false)
    // the kept answer, the same transaction: the key never sends it again
    const later = await send(u, body, key)
    expect(later.headers.get('idempotency-replayed')).toBe('true')
    expect(later.body).toMatchObject({ id: first.body.id, txHash: first.body.txHash })
    expect(proxy.submissions - submitted).toBe(1)
  }, 20_000)
})

describe("the adapter's reading of a submission's error", () => {
  // JSON-RPC error answers to sendTransaction, by path (HTTP 200, as Solana's RPC answers them)
  const errors: Record<string, { code: number; message: string; data?: unknown }> = {
    '/refuse': { code: -32002, message: 'Transaction simulation failed: Blockhash not found', data: { err: 'BlockhashNotFound', logs: [] } },
    '/no-fee': { code: -32002, message: 'Transaction simulation failed: Attempt to debit an account but found no record of a prior credit.', data: { err: 'AccountNotFound', logs: [] } },
    '/bad-signature': { code: -32003, message: 'Transaction signature verification failure' },
    '/processed': { code: -32002, message: 'Transaction simulation failed: This transaction has already been processed', data: { err: 'AlreadyProcessed', logs: [] } },
    '/busy': { code: -32000, message: 'server overloaded, try later' },
    '/internal': { code: -32603, message: 'Internal error' },
    '/behind': { code: -32005, message: 'Node is behind by 42 slots', data: { numSlotsBehind: 42 } },
  }
  test('never connected or rate-limited: unreachable; the node refused it (preflight, signature): rejected; any other error answer or status, anything after the request left: unknown', async () => {
    const srv = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        if (req.url === '/cut') return void req.socket.destroy()
        if (req.url === '/stall') return
        if (req.url === '/429') return void res.writeHead(429).end('slow down')
        if (req.url === '/502') return void res.writeHead(502).end('bad gateway')
        // a gateway whose upstream refused it: the status's body names ECONNREFUSED, but this connection was made
        if (req.url === '/502-refused') return void res.writeHead(502).end('upstream connect error or disconnect/reset before headers. reset reason: connection failure, transport failure reason: delayed connect error: ECONNREFUSED')
        if (req.url === '/503-error') return void res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32002, message: 'Transaction simulation failed: Blockhash not found' } }))
        const call = JSON.parse(Buffer.concat(chunks).toString()) as { id: unknown; method: string }
        res.writeHead(200, { 'content-type': 'application/json' })
        // the node has no status for the signature
        if (call.method === 'getSignatureStatuses') return void res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { context: { slot: 1 }, value: [null] } }))
        res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: errors[req.url ?? ''] ?? errors['/refuse'] }))
      })
    })
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
    const closed = createServer()
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
    const closedPort = (closed.address() as AddressInfo).port
    closed.close()
    const base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`
    const clients = new SolanaClients(1000)
    // a signed transaction's shape: one signature (64 bytes) after its count
    const raw = new Uint8Array(100)
    raw[0] = 1
    const outcome = async (rpcUrl: string) => (await clients.rpc({ rpcUrl, registryId: 'solana', family: 'solana', expectedChainId: null, multicall3: false } as ChainEndpoint).sendRaw(raw)).kind
    const urls = {
      refused: `http://127.0.0.1:${closedPort}`, 'no such host': 'http://no-such-host.invalid', 'rate limited': `${base}/429`,
      'blockhash not found': `${base}/refuse`, 'no fee': `${base}/no-fee`, 'bad signature': `${base}/bad-signature`,
      'already processed': `${base}/processed`, busy: `${base}/busy`, internal: `${base}/internal`, behind: `${base}/behind`,
      cut: `${base}/cut`, stall: `${base}/stall`, 'bad gateway': `${base}/502`, 'bad gateway naming ECONNREFUSED': `${base}/502-refused`, 'refusal under a 503': `${base}/503-error`,
    }
    try {
      const got: Record<string, string> = {}
      for (const [name, url] of Object.entries(urls)) got[name] = await outcome(url)
      expect(got).toEqual({
        refused: 'unreachable', 'no such host': 'unreachable', 'rate limited': 'unreachable',
        'blockhash not found': 'rejected', 'no fee': 'rejected', 'bad signature': 'rejected',
        'already processed': 'unknown', busy: 'unknown', internal: 'unknown', behind: 'unknown',
        cut: 'unknown', stall: 'unknown', 'bad gateway': 'unknown', 'bad gateway naming ECONNREFUSED': 'unknown', 'refusal under a 503': 'unknown',
      })
    } finally {
      srv.closeAllConnections()
      srv.close()
    }
  }, 30_000)
})
