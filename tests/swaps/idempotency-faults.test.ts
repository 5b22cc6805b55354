/**
 * `Idempotency-Key` on `POST /v1/swap/execute` (a custodial EVM swap) with a fault injected at
 * each step of its send, over HTTP on the devnet's gnosis-chiado node behind a JSON-RPC fault proxy
 * (issue 30, item 2):
 * - before the broadcast (the node refuses the submission, or cannot be reached): the error is
 *   answered, the key is released, and the same key swaps once;
 * - after the broadcast (the node took it and its answer was lost, or the connection closed):
 *   201, a retry answers the same swap, nothing is sent twice;
 * - a process that stopped after recording the swap: the retry answers the swap as it is now.
 * Each checks the chain: the wallet's nonce and its USDC moved once.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Address } from 'viem'
import { DEVNET_CHIADO_EURE, DEVNET_CHIADO_USDC, DEVNET_SWAP_ROUTER, giveChiadoGas } from '../../scripts/devnet/chain'
import type { SignedInUser } from '@tests/helpers/factories'
import { startRpcFaultProxy, type RpcFault, type RpcFaultProxy } from '@tests/helpers/rpc-fault-proxy'
import { waitFor } from '@tests/transactions/helpers'
import { auth, mintTo, swapWorld, type SwapWorld } from './world'

const dir = mkdtempSync(join(tmpdir(), 'slipway-swaps-faults-'))
let w: SwapWorld
let proxy: RpcFaultProxy

beforeAll(async () => {
  w = await swapWorld(dir, { gnosisRpc: async (url) => (proxy = await startRpcFaultProxy(url)).url })
}, 60_000)
afterAll(async () => {
  proxy.stop()
  await w.stop()
})

const usdc = (a: Address) => w.chain.pub.readContract({ address: DEVNET_CHIADO_USDC, abi: [{ type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ name: 'a', type: 'address' }], outputs: [{ name: '', type: 'uint256' }] }], functionName: 'balanceOf', args: [a] }) as Promise<bigint>
const nonceOf = (a: Address) => w.chain.pub.getTransactionCount({ address: a })

/** A custodial gnosis wallet with gas and 100 USDC, the router approved for it (nonce 1 after), and a quote for 25 USDC. */
async function ready() {
  const u = await w.f.user(w.tenant)
  const res = await w.api.post('/v1/wallets/', { chain: 'gnosis', isTestnet: true }, auth(u))
  expect(res.status).toBe(201)
  const wallet = res.body as { id: string; address: Address }
  await giveChiadoGas(w.devnet.chiadoUrl, wallet.address, 10n ** 18n)
  await mintTo(w.chain, DEVNET_CHIADO_USDC, wallet.address, 100_000_000n)
  const approval = await w.api.post('/v1/swap/approve', { walletId: wallet.id, tokenAddress: DEVNET_CHIADO_USDC, spenderAddress: DEVNET_SWAP_ROUTER, amount: '100000000' }, auth(u))
  expect(approval.status).toBe(201)
  await waitFor(() => nonceOf(wallet.address), (n) => n === 1)
  const q = await w.api.post('/v1/swap/quote', { walletId: wallet.id, fromChain: 'gnosis', toChain: 'gnosis', isTestnet: true, fromToken: DEVNET_CHIADO_USDC, toToken: DEVNET_CHIADO_EURE, fromAmount: '25000000' }, auth(u))
  expect(q.status).toBe(200)
  return { u, wallet, quoteId: q.body.quoteId as string }
}

const execute = (u: SignedInUser, quoteId: string, key: string) => w.api.post('/v1/swap/execute', { quoteId }, auth(u, { 'idempotency-key': key }))
const swaps = async (u: SignedInUser) => ((await w.api.get('/v1/transactions/', auth(u))).body.data as Array<{ id: string; type: string; status: string }>).filter((x) => x.type === 'swap')

/** One swap on chain: the approval and the swap from the wallet, 25 USDC gone. */
async function swappedOnce(wallet: { address: Address }) {
  await waitFor(() => usdc(wallet.address), (b) => b < 100_000_000n)
  expect(await usdc(wallet.address)).toBe(75_000_000n)
  expect(await nonceOf(wallet.address)).toBe(2)
}

describe('before the broadcast: the key is released and the same key swaps once', () => {
  const cases: Array<[RpcFault, number, string, string[]]> = [
    ['reject', 400, 'TRANSACTION_REJECTED', ['failed']],
    ['down', 503, 'ServiceUnavailableError', []],
  ]
  for (const [fault, status, code, recorded] of cases) {
    test(`the node ${fault === 'reject' ? 'refuses the submission' : 'cannot be reached'}: ${status}; the retry swaps (replayed false); one swap on chain`, async () => {
      const { u, wallet, quoteId } = await ready()
      const key = crypto.randomUUID()
      const first = await proxy.during(fault, () => execute(u, quoteId, key))
      expect({ status: first.status, code: first.body.code ?? first.body.error }).toEqual({ status, code })
      expect((await swaps(u)).map((x) => x.status)).toEqual(recorded)
      expect(await nonceOf(wallet.address)).toBe(1)
      const again = await execute(u, quoteId, key)
      expect({ status: again.status, body: again.body }).toMatchObject({ status: 201, body: { type: 'swap', status: 'pending', quoteId } })
      expect(again.headers.get('idempotency-replayed')).toBe('false')
      const replay = await execute(u, quoteId, key)
      expect(replay.headers.get('idempotency-replayed')).toBe('true')
      expect(replay.body.id).toBe(again.body.id)
      await swappedOnce(wallet)
    }, 60_000)
  }
})

describe('after the broadcast: the key stays bound to the swap', () => {
  for (const fault of ['lose', 'cut'] as const) {
    test(`the node took it and ${fault === 'lose' ? 'answered an error' : 'the connection closed before its answer'}: 201; a retry answers the same swap; one swap on chain`, async () => {
      const { u, wallet, quoteId } = await ready()
      const key = crypto.randomUUID()
      const sent = proxy.forwarded.length
      const first = await proxy.during(fault, () => execute(u, quoteId, key))
      expect({ status: first.status, body: first.body }).toMatchObject({ status: 201, body: { type: 'swap', status: 'pending', quoteId } })
      const retry = await execute(u, quoteId, key)
      expect(retry.status).toBe(201)
      expect(retry.headers.get('idempotency-replayed')).toBe('true')
      expect(retry.body).toMatchObject({ id: first.body.id, txHash: first.body.txHash, type: 'swap', quoteId })
      await swappedOnce(wallet)
      expect(proxy.forwarded.length - sent).toBe(1)
      expect((await swaps(u)).map((x) => x.id)).toEqual([first.body.id])
    }, 60_000)
  }

  test('a process that stopped after recording the swap (no answer kept): the retry answers the swap as it is now, in the swap\'s shape; nothing sent', async () => {
    const { u, wallet, quoteId } = await ready()
    const key = crypto.randomUUID()
    const first = await execute(u, quoteId, key)
    expect(first.status).toBe(201)
    await swappedOnce(wallet)
    await w.t.deps.database.client.execute({ sql: `UPDATE idempotency_keys SET state = 'running', status_code = NULL, response = NULL, created_at = ? WHERE key = ?`, args: [Date.now() - 121_000, key] })
    const before = proxy.submissions
    const retry = await execute(u, quoteId, key)
    expect({ status: retry.status, body: retry.body }).toMatchObject({ status: 201, body: { id: first.body.id, type: 'swap', quoteId } })
    expect(retry.headers.get('idempotency-replayed')).toBe('true')
    expect(proxy.submissions).toBe(before)
    await swappedOnce(wallet)
  }, 60_000)
})
