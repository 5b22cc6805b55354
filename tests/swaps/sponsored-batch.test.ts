/**
 * A sponsored swap that still needs its approval, on the devnet's gnosis-chiado node with EntryPoint
 * v0.8, Simple7702Account, SlipwayPaymaster and alto: a custodial wallet with 0 xDAI and USDC
 * executes a USDC to EURe quote without approving first; the approval and the swap go as one
 * user operation (Simple7702Account's executeBatch) the paymaster pays: one record, the EURe
 * received, the allowance used up, still 0 xDAI. Without sponsorship the same swap answers 400,
 * as before (the client approves first).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineChain, erc20Abi, parseEther, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { deployPaymaster, installAccountAbstraction, SIMPLE_7702_ACCOUNT, startAlto, type AltoBundler } from '../../scripts/devnet/aa'
import { DEVNET_CHIADO_CHAIN_ID, DEVNET_CHIADO_EURE, DEVNET_CHIADO_USDC, DEVNET_SWAP_ROUTER, giveChiadoGas } from '../../scripts/devnet/chain'
import { findToken, rateOf } from '@/sandbox/swap-aggregator/market'
import { waitFor } from '@tests/transactions/helpers'
import { auth, mintTo, swapWorld, type SwapWorld } from './world'

const dir = mkdtempSync(join(tmpdir(), 'slipway-swaps-sponsored-'))
let world: SwapWorld
let bundler: AltoBundler | undefined

async function rpcOf(url: string, method: string, params: unknown[]) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const body = (await res.json()) as { result?: unknown; error?: { message: string } }
  if (body.error) throw new Error(body.error.message)
  return body.result
}

beforeAll(async () => {
  world = await swapWorld(dir, {
    jobs: true,
    env: async (devnet) => {
      const url = devnet.chiadoUrl
      const keys = { deployer: generatePrivateKey(), executor: generatePrivateKey(), utility: generatePrivateKey(), signer: generatePrivateKey() }
      for (const k of [keys.deployer, keys.executor, keys.utility]) await giveChiadoGas(url, privateKeyToAccount(k).address, parseEther('100'))
      const chain = defineChain({ id: DEVNET_CHIADO_CHAIN_ID, name: 'devnet-chiado', nativeCurrency: { name: 'xDai', symbol: 'xDAI', decimals: 18 }, rpcUrls: { default: { http: [url] } } })
      const signer = { chain, rpcUrl: url, account: privateKeyToAccount(keys.deployer) }
      await installAccountAbstraction(signer, (m, p) => rpcOf(url, m, p))
      const paymaster = await deployPaymaster(signer, privateKeyToAccount(keys.signer).address, parseEther('10'))
      bundler = await startAlto({ rpcUrl: url, executorKeys: [keys.executor], utilityKey: keys.utility })
      return { BUNDLER_URL_GNOSIS_CHIADO: bundler.url, PAYMASTER_ADDRESS_GNOSIS_CHIADO: paymaster, PAYMASTER_SIGNER_PRIVATE_KEY: keys.signer }
    },
  })
}, 120_000)
afterAll(async () => {
  await bundler?.stop()
  await world?.stop()
})

const balanceOf = (token: Address, a: Address) => world.chain.pub.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [a] })

describe('a sponsored swap with its approval', () => {
  test('0 xDAI, no approval: approve and swap go as one sponsored executeBatch user operation; one record; EURe received; still 0 xDAI', async () => {
    const { api, f, tenant } = world
    const admin = await f.tenantAdmin(tenant)
    const policy = await api.put(`/v1/admin/tenants/${tenant.id}/gas-policies/gnosis-chiado`, { enabled: true, operations: ['swap'] }, { token: admin.accessToken })
    expect(policy.status).toBe(200)
    expect(policy.body.sponsorshipAvailable).toBe(true)
    const u = await f.user(tenant)
    const created = await api.post('/v1/wallets/', { chain: 'gnosis', isTestnet: true }, auth(u))
    expect(created.status).toBe(201)
    const w = created.body as { id: string; address: Address }
    await mintTo(world.chain, DEVNET_CHIADO_USDC, w.address, 100_000_000n)
    expect(await world.chain.pub.getBalance({ address: w.address })).toBe(0n)

    const q = await api.post('/v1/swap/quote', { walletId: w.id, fromChain: 'gnosis', toChain: 'gnosis', isTestnet: true, fromToken: DEVNET_CHIADO_USDC, toToken: DEVNET_CHIADO_EURE, fromAmount: '25000000' }, auth(u))
    expect(q.status).toBe(200)
    expect(q.body).toMatchObject({ approvalAddress: DEVNET_SWAP_ROUTER, needsApproval: true })
    const executed = await api.post('/v1/swap/execute', { quoteId: q.body.quoteId }, auth(u))
    expect(executed.status).toBe(201)
    expect(executed.body).toMatchObject({ type: 'swap', status: 'pending', quoteId: q.body.quoteId })
    const done = await waitFor(() => api.get(`/v1/transactions/${executed.body.id}/status`, auth(u)), (r) => r.body.status !== 'pending', 45_000)
    expect(done.body.status).toBe('confirmed')

    const r = rateOf(findToken(DEVNET_CHIADO_CHAIN_ID, 'USDC')!, findToken(DEVNET_CHIADO_CHAIN_ID, 'EURe')!)
    expect(await balanceOf(DEVNET_CHIADO_EURE, w.address)).toBe(25_000_000n * r.num / r.den)
    expect(await balanceOf(DEVNET_CHIADO_USDC, w.address)).toBe(75_000_000n)
    const allowance = await world.chain.pub.readContract({ address: DEVNET_CHIADO_USDC, abi: erc20Abi, functionName: 'allowance', args: [w.address, DEVNET_SWAP_ROUTER] })
    expect(allowance).toBe(0n)
    expect(await world.chain.pub.getBalance({ address: w.address })).toBe(0n)
    expect((await world.chain.pub.getCode({ address: w.address }))?.toLowerCase()).toBe(`0xef0100${SIMPLE_7702_ACCOUNT.slice(2).toLowerCase()}`)
    // one record, the swap, sponsored with both calls in its one user operation
    const rows = (await world.t.deps.database.client.execute({ sql: 'SELECT type, user_op_hash, user_op, metadata FROM transactions WHERE wallet_id = ?', args: [w.id] })).rows
    expect(rows.map((x) => x.type)).toEqual(['swap'])
    expect(String(rows[0]!.user_op_hash)).toMatch(/^0x[0-9a-f]{64}$/)
    expect(JSON.parse(String(rows[0]!.metadata)).sponsorship).toMatchObject({ batchedCalls: 2 })
    // the signed operation kept on the record calls executeBatch((address,uint256,bytes)[]), selector 0x34fcd5be
    const userOp = JSON.parse(String(rows[0]!.user_op)) as { callData: Hex }
    expect(userOp.callData.slice(0, 10)).toBe('0x34fcd5be')
  }, 120_000)

  test('not sponsored (the policy is off): the same swap without an approval answers 400 and nothing is recorded', async () => {
    const { api, f, tenant } = world
    const admin = await f.tenantAdmin(tenant)
    expect((await api.put(`/v1/admin/tenants/${tenant.id}/gas-policies/gnosis-chiado`, { enabled: false }, { token: admin.accessToken })).status).toBe(200)
    const u = await f.user(tenant)
    const w = (await api.post('/v1/wallets/', { chain: 'gnosis', isTestnet: true }, auth(u))).body as { id: string; address: Address }
    await mintTo(world.chain, DEVNET_CHIADO_USDC, w.address, 100_000_000n)
    await giveChiadoGas(world.devnet.chiadoUrl, w.address, 10n ** 18n)
    const q = await api.post('/v1/swap/quote', { walletId: w.id, fromChain: 'gnosis', toChain: 'gnosis', isTestnet: true, fromToken: DEVNET_CHIADO_USDC, toToken: DEVNET_CHIADO_EURE, fromAmount: '25000000' }, auth(u))
    expect(q.body.needsApproval).toBe(true)
    const executed = await api.post('/v1/swap/execute', { quoteId: q.body.quoteId }, auth(u))
    expect(executed.status).toBe(400)
    expect((await world.t.deps.database.client.execute({ sql: 'SELECT count(*) AS n FROM transactions WHERE wallet_id = ?', args: [w.id] })).rows[0]!.n).toBe(0)
  }, 60_000)
})
