/**
 * `Idempotency-Key` on `POST /v1/aave/supply` and `/withdraw` with faults (issue 30,
 * item 2), over HTTP on the devnet's Sepolia node behind a JSON-RPC fault proxy: the approval
 * reaches the node, the supply's submission is refused. The key stays bound to the approval,
 * so a retry with the same key answers what was sent (the supply `failed`, never submitted,
 * and its approval as it is now) and sends nothing; one approval on chain. The node's miner is stopped meanwhile,
 * so the allowance is still short when the retry runs (as on a chain whose blocks take time).
 * Then: the node gone after the approval, so the supply is never recorded (a same-key retry
 * answers 409 `AAVE_SUPPLY_NOT_SENT` with the approval in `details`, sends nothing); and a
 * withdraw whose connection is cut after the node took it, then whose answer is lost (a retry
 * answers the same withdraw from the kept answer, then from its record; one withdraw on chain).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Address } from 'viem'
import { DEVNET_USDC } from '../../scripts/devnet/chain'
import { startRpcFaultProxy, type RpcFaultProxy } from '@tests/helpers/rpc-fault-proxy'
import { waitFor } from '@tests/transactions/helpers'
import { both, freshIp, lendingWorld, type LendingWorld } from './world'

const dir = mkdtempSync(join(tmpdir(), 'slipway-lending-faults-'))
let w: LendingWorld
let proxy: RpcFaultProxy

beforeAll(async () => {
  w = await lendingWorld(dir, { sepoliaRpc: async (url) => (proxy = await startRpcFaultProxy(url)).url })
}, 60_000)
afterAll(async () => {
  proxy.stop()
  await w.stop()
})

const node = (method: string, params: unknown[] = []) => w.chain.pub.request({ method, params } as never)

test('the supply never reaches the node after its approval was sent: the key stays bound; a retry answers the approval, sends nothing; one approval on chain, no 500', async () => {
  const u = await w.f.user(w.tenant)
  const ip = freshIp()
  const res = await w.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: u.accessToken })
  expect(res.status).toBe(201)
  const wallet = res.body as { id: string; address: Address }
  await w.chain.fund(wallet.address, 50_000_000n)
  const body = { walletId: wallet.id, asset: DEVNET_USDC, amount: '10000000' }
  const key = { 'idempotency-key': `lend-fault-${crypto.randomUUID()}` }
  const submitted = proxy.submissions
  // mining paused: the approval waits in the node's pool
  await node('evm_setAutomine', [false])
  let first, retry
  try {
    // the approval passes, the supply's submission is refused
    first = await proxy.during('reject', () => w.api.post('/v1/aave/supply', body, both(w.tenant, u, ip, { headers: key })), 1)
    expect({ status: first.status, code: first.body.code }).toEqual({ status: 400, code: 'TRANSACTION_REJECTED' })
    expect(proxy.submissions - submitted).toBe(2)
    retry = await w.api.post('/v1/aave/supply', body, both(w.tenant, u, ip, { headers: key }))
    // nothing sent again
    expect(proxy.submissions - submitted).toBe(2)
  } finally {
    await node('evm_setAutomine', [true])
    await node('evm_mine')
  }
  expect(retry.headers.get('idempotency-replayed')).toBe('true')
  // the supply as it is (recorded failed: never submitted) and the approval that went out
  expect({ status: retry.status, body: retry.body }).toMatchObject({ status: 201, body: { type: 'supply', status: 'failed', asset: DEVNET_USDC, amount: '10000000' } })
  expect(retry.body.approval).toMatchObject({ type: 'approval', status: 'pending', nonce: 0, asset: DEVNET_USDC, amount: '10000000' })
  const history = async () => (await w.api.get(`/v1/transactions/?walletId=${wallet.id}`, { token: u.accessToken })).body.data as Array<{ id: string; type: string; status: string }>
  const approvals = (await history()).filter((t) => t.type === 'approval')
  expect(approvals.map((t) => t.id)).toEqual([retry.body.approval.id])
  // on chain: the one approval, nothing else from the wallet
  await waitFor(() => w.chain.pub.getTransactionCount({ address: wallet.address }), (n) => n > 0)
  expect(await w.chain.pub.getTransactionCount({ address: wallet.address })).toBe(1)
  // once it is mined, a supply with a new key needs no approval and goes through
  await waitFor(history, (h) => h.some((t) => t.type === 'approval' && t.status === 'confirmed'))
  const again = await w.api.post('/v1/aave/supply', body, both(w.tenant, u, ip, { headers: { 'idempotency-key': `lend-fault-${crypto.randomUUID()}` } }))
  expect(again.status).toBe(201)
  expect(again.body).toMatchObject({ type: 'supply', approval: null, nonce: 1 })
  // the first key still answers what it sent
  const later = await w.api.post('/v1/aave/supply', body, both(w.tenant, u, ip, { headers: key }))
  expect(later.body).toMatchObject({ id: retry.body.id, status: 'failed', approval: { status: 'confirmed' } })
}, 60_000)

const history = async (u: { accessToken: string }, walletId: string) =>
  (await w.api.get(`/v1/transactions/?walletId=${walletId}`, { token: u.accessToken })).body.data as Array<{ id: string; type: string; status: string }>

async function fundedWallet(u: { accessToken: string }, usdc: bigint) {
  const res = await w.api.post('/v1/wallets/', { chain: 'ethereum', isTestnet: true }, { token: u.accessToken })
  expect(res.status).toBe(201)
  const wallet = res.body as { id: string; address: Address }
  await w.chain.fund(wallet.address, usdc)
  return wallet
}

test('the supply is never recorded after its approval went out (the node down from then): 503; a same-key retry answers 409 AAVE_SUPPLY_NOT_SENT with the approval, sends nothing', async () => {
  const u = await w.f.user(w.tenant)
  const wallet = await fundedWallet(u, 50_000_000n)
  const body = { walletId: wallet.id, asset: DEVNET_USDC, amount: '7000000' }
  const key = { 'idempotency-key': `lend-fault-${crypto.randomUUID()}` }
  const submitted = proxy.submissions
  // the approval reaches the node; every call after it (the supply's reads) finds no node
  const first = await proxy.during('down', () => w.api.post('/v1/aave/supply', body, both(w.tenant, u, freshIp(), { headers: key })), 1)
  expect(first.status).toBe(503)
  expect(proxy.submissions - submitted).toBe(1)
  // the approval is recorded, the supply is not
  const approvals = await history(u, wallet.id)
  expect(approvals.map((t) => t.type)).toEqual(['approval'])
  const retry = await w.api.post('/v1/aave/supply', body, both(w.tenant, u, freshIp(), { headers: key }))
  expect(retry.headers.get('idempotency-replayed')).toBe('true')
  expect(retry.status).toBe(409)
  expect(retry.body).toMatchObject({ code: 'AAVE_SUPPLY_NOT_SENT', details: { approval: { id: approvals[0]!.id, type: 'approval', asset: DEVNET_USDC, amount: '7000000', nonce: 0 } } })
  // nothing sent again, nothing recorded again: one approval on chain
  expect(proxy.submissions - submitted).toBe(1)
  expect((await history(u, wallet.id)).map((t) => t.type)).toEqual(['approval'])
  await waitFor(() => history(u, wallet.id), (h) => h[0]?.status === 'confirmed')
  expect(await w.chain.pub.getTransactionCount({ address: wallet.address })).toBe(1)
  const later = await w.api.post('/v1/aave/supply', body, both(w.tenant, u, freshIp(), { headers: key }))
  expect({ status: later.status, code: later.body.code, approval: later.body.details?.approval?.status }).toEqual({ status: 409, code: 'AAVE_SUPPLY_NOT_SENT', approval: 'confirmed' })
  expect(proxy.submissions - submitted).toBe(1)
}, 60_000)

test('withdraw with an Idempotency-Key whose answer is lost after the broadcast (connection cut, then a process that stopped): retries answer the same withdraw; one on chain', async () => {
  const u = await w.f.user(w.tenant)
  const wallet = await fundedWallet(u, 20_000_000n)
  const supplied = await w.api.post('/v1/aave/supply', { walletId: wallet.id, asset: DEVNET_USDC, amount: '20000000' }, both(w.tenant, u, freshIp()))
  expect(supplied.status).toBe(201)
  await waitFor(() => history(u, wallet.id), (h) => h.length === 2 && h.every((t) => t.status === 'confirmed'))
  const aToken = await w.chain.aToken()
  expect(await w.chain.tokenBalance(aToken, wallet.address)).toBe(20_000_000n)
  const body = { walletId: wallet.id, asset: DEVNET_USDC, amount: '6000000' }
  const key = `lend-fault-${crypto.randomUUID()}`
  const forwarded = proxy.forwarded.length
  const first = await proxy.during('cut', () => w.api.post('/v1/aave/withdraw', body, both(w.tenant, u, freshIp(), { headers: { 'idempotency-key': key } })))
  expect({ status: first.status, body: first.body }).toMatchObject({ status: 201, body: { type: 'withdraw', status: 'pending', nonce: 2, amount: '6000000' } })
  expect(proxy.forwarded.length - forwarded).toBe(1)
  const retry = await w.api.post('/v1/aave/withdraw', body, both(w.tenant, u, freshIp(), { headers: { 'idempotency-key': key } }))
  expect(retry.headers.get('idempotency-replayed')).toBe('true')
  expect(retry.body).toMatchObject({ id: first.body.id, txHash: first.body.txHash, type: 'withdraw' })
  // as a process that stopped after sending leaves it: bound, no answer kept, its claim stale
  await w.t.deps.database.client.execute({ sql: `UPDATE idempotency_keys SET state = 'running', status_code = NULL, response = NULL, created_at = ? WHERE key = ?`, args: [Date.now() - 121_000, key] })
  const submitted = proxy.submissions
  const replay = await w.api.post('/v1/aave/withdraw', body, both(w.tenant, u, freshIp(), { headers: { 'idempotency-key': key } }))
  expect(replay.status).toBe(201)
  expect(replay.headers.get('idempotency-replayed')).toBe('true')
  expect(replay.body).toMatchObject({ id: first.body.id, type: 'withdraw', asset: DEVNET_USDC, amount: '6000000' })
  expect(proxy.submissions).toBe(submitted)
  await waitFor(() => history(u, wallet.id), (h) => h.find((t) => t.id === first.body.id)?.status === 'confirmed')
  expect(await w.chain.tokenBalance(aToken, wallet.address)).toBe(14_000_000n)
  expect(await w.chain.pub.getTransactionCount({ address: wallet.address })).toBe(3)
  expect((await history(u, wallet.id)).filter((t) => t.type === 'withdraw').map((t) => t.id)).toEqual([first.body.id])
}, 60_000)
