/**
 * `Idempotency-Key` on `POST /v1/aave/supply` with a fault between its two sends (issue 30,
 * item 2), over HTTP on the devnet's Sepolia node behind a JSON-RPC fault proxy: the approval
 * reaches the node, the supply's submission is refused. The key stays bound to the approval,
 * so a retry with the same key answers what was sent (the supply `failed`, never submitted,
 * and its approval as it is now) and sends nothing; one approval on chain. The node's miner is stopped meanwhile,
 * so the allowance is still short when the retry runs (as on a chain whose blocks take time).
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

const node = (method: string) => w.chain.pub.request({ method, params: [] } as never)

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
  await node('miner_stop')
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
    await node('miner_start')
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
