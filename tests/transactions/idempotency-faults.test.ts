/**
 * `Idempotency-Key` on `POST /v1/transactions/` (a custodial EVM send) with a fault injected
 * at each step of the send, over HTTP on ganache (issue 30, item 2):
 * - before the broadcast (the node refuses the submission, or cannot be reached): the error is
 *   answered, the key is released, and the same key sends once;
 * - after the broadcast (the node took it, its answer was lost): the send goes on, a retry
 *   answers the same transaction as it is now, nothing is sent twice.
 * Each checks the chain: the sender's nonce and the recipient's balance moved once.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseEther, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { systemClock } from '@/lib/clock'
import { makeApp, type TestApp } from '@tests/helpers/app'
import { Factory, type SignedInUser, type Tenant } from '@tests/helpers/factories'
import { startRpcFaultProxy, type RpcFault, type RpcFaultProxy } from '@tests/helpers/rpc-fault-proxy'
import { startLocalChain, type LocalChain } from '@tests/wallets/ganache'
import { custodialWallet, reader, waitFor } from './helpers'

let node: LocalChain
let proxy: RpcFaultProxy
let t: TestApp
let f: Factory
let tenant: Tenant
let chain: ReturnType<typeof reader>

beforeAll(async () => {
  node = await startLocalChain({ chainId: 1 })
  chain = reader(node.url)
  proxy = await startRpcFaultProxy(node.url)
  t = await makeApp({ clock: systemClock, env: { RPC_TIMEOUT_MS: '3000' } })
  f = new Factory(t)
  tenant = await f.tenant({ chains: { rpc: { ethereum: proxy.url } } })
}, 30_000)
afterAll(async () => {
  proxy.stop()
  await t.close()
  await node.stop()
})

async function sender() {
  const u = await f.user(tenant)
  const w = await custodialWallet(f.api, u)
  await node.sendNative(w.address, parseEther('1'))
  return { u, w: w as { id: string; address: Address } }
}

const send = (u: SignedInUser, body: unknown, key: string) => f.api.post('/v1/transactions/', body, { token: u.accessToken, headers: { 'idempotency-key': key } })
const history = async (u: SignedInUser) => (await f.api.get('/v1/transactions/', { token: u.accessToken })).body.data as Array<{ id: string; status: string }>

describe('before the broadcast: the key is released and the same key sends once', () => {
  const cases: Array<[RpcFault, number, string, string[]]> = [
    ['reject', 400, 'TRANSACTION_REJECTED', ['failed']],
    ['down', 503, 'ServiceUnavailableError', []],
  ]
  for (const [fault, status, code, recorded] of cases) {
    test(`the node ${fault === 'reject' ? 'refuses the submission' : 'cannot be reached'}: ${status}, then the retry sends (replayed false); one transfer on chain`, async () => {
      const { u, w } = await sender()
      const to = privateKeyToAccount(generatePrivateKey()).address
      const body = { walletId: w.id, chain: 'ethereum', toAddress: to, amount: '1000' }
      const key = crypto.randomUUID()
      const first = await proxy.during(fault, () => send(u, body, key))
      expect({ status: first.status, code: first.body.code ?? first.body.error }).toEqual({ status, code })
      expect(first.headers.get('idempotency-replayed')).toBe('false')
      // a refused submission is recorded failed; an unreachable node is found before anything is recorded
      expect((await history(u)).map((x) => x.status)).toEqual(recorded)
      expect(await chain.nonce(w.address)).toBe(0)
      const again = await send(u, body, key)
      expect(again.status).toBe(201)
      expect(again.headers.get('idempotency-replayed')).toBe('false')
      expect(again.body).toMatchObject({ status: 'pending', nonce: 0 })
      // the same key again: the send it now holds
      const replay = await send(u, body, key)
      expect(replay.headers.get('idempotency-replayed')).toBe('true')
      expect(replay.body.id).toBe(again.body.id)
      await waitFor(() => chain.balance(to), (b) => b > 0n)
      expect(await chain.balance(to)).toBe(1000n)
      expect(await chain.nonce(w.address)).toBe(1)
    }, 30_000)
  }
})

describe('after the broadcast: the key stays bound to the send', () => {
  for (const fault of ['lose', 'cut'] as const) test(`the node took it and ${fault === 'lose' ? 'answered an error' : 'the connection closed before its answer'}: 201 pending; a retry answers the same transaction; one transfer on chain`, async () => {
    const { u, w } = await sender()
    const to = privateKeyToAccount(generatePrivateKey()).address
    const body = { walletId: w.id, chain: 'ethereum', toAddress: to, amount: '2000' }
    const key = crypto.randomUUID()
    const before = proxy.forwarded.length
    const first = await proxy.during(fault, () => send(u, body, key))
    expect({ status: first.status, body: first.body }).toMatchObject({ status: 201 })
    expect(first.status).toBe(201)
    expect(first.body).toMatchObject({ status: 'pending', nonce: 0, txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) })
    expect(proxy.forwarded.length - before).toBe(1)
    const retry = await send(u, body, key)
    expect(retry.status).toBe(201)
    expect(retry.headers.get('idempotency-replayed')).toBe('true')
    expect(retry.body).toMatchObject({ id: first.body.id, txHash: first.body.txHash })
    await waitFor(() => chain.balance(to), (b) => b > 0n)
    expect(await chain.balance(to)).toBe(2000n)
    expect(await chain.nonce(w.address)).toBe(1)
    expect(proxy.forwarded.length - before).toBe(1)
    expect((await history(u)).map((x) => x.id)).toEqual([first.body.id])
  }, 30_000)

  test('the answer to the client is lost after a bound send (as a process that stopped): the retry answers the send as it is now, never sends', async () => {
    const { u, w } = await sender()
    const to = privateKeyToAccount(generatePrivateKey()).address
    const body = { walletId: w.id, chain: 'ethereum', toAddress: to, amount: '3000' }
    const key = crypto.randomUUID()
    const first = await send(u, body, key)
    expect(first.status).toBe(201)
    // as a process that stopped after recording and submitting leaves it: bound, no answer kept, its claim stale
    await t.deps.database.client.execute({ sql: `UPDATE idempotency_keys SET state = 'running', status_code = NULL, response = NULL, created_at = ? WHERE key = ?`, args: [Date.now() - 121_000, key] })
    const before = proxy.submissions
    const retry = await send(u, body, key)
    expect(retry.status).toBe(201)
    expect(retry.headers.get('idempotency-replayed')).toBe('true')
    expect(retry.body.id).toBe(first.body.id)
    expect(proxy.submissions).toBe(before)
    await waitFor(() => chain.balance(to), (b) => b > 0n)
    expect(await chain.balance(to)).toBe(3000n)
    expect(await chain.nonce(w.address)).toBe(1)
  }, 30_000)
})
