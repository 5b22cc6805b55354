/** The bank ramp simulator's chain settings refuse a mainnet (src/adapters/chain/mainnets.ts). */
import { afterAll, expect, test } from 'bun:test'
import { evmStablecoinSender, MainnetChainRefused } from '@/adapters/chain/funded-sender'
import { knownMainnet } from '@/adapters/chain/mainnets'
import { makeApp } from '../helpers/app'

/** A JSON-RPC node that answers only eth_chainId, with the id the test sets. */
let chainId = 1
const node = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    const body = await req.json() as { id: number; method: string }
    if (body.method === 'eth_chainId') return Response.json({ jsonrpc: '2.0', id: body.id, result: `0x${chainId.toString(16)}` })
    return Response.json({ jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'not served by this test node' } })
  },
})
afterAll(() => node.stop(true))
const rpcUrl = `http://127.0.0.1:${node.port}`
const settings = { tokenAddress: '0x' + '11'.repeat(20), privateKey: '0x' + '22'.repeat(32) }

test('the known mainnets are refused, test networks and local development chains are not', async () => {
  for (const id of [1, 10, 56, 137, 8453, 42161, 42220, 100, 43114, 747]) expect(await knownMainnet(id)).not.toBeNull()
  expect(await knownMainnet(1)).toBe('Ethereum')
  for (const id of [11155111, 84532, 17000, 1337, 31337]) expect(await knownMainnet(id)).toBeNull()
})

test('a sender on chain id 1 refuses to pay, naming the chain, and never signs a transfer', async () => {
  chainId = 1
  const sender = evmStablecoinSender({ rpcUrl, ...settings, timeoutMs: 2000 })
  const err = await sender.sendStablecoin('0x' + '33'.repeat(20), 1_000_000n).catch((e) => e)
  expect(err).toBeInstanceOf(MainnetChainRefused)
  expect((err as Error).message).toContain('chain id 1 (Ethereum), a mainnet')
})

test('a sender on a development chain id (1337, viem\'s localhost) is accepted', async () => {
  chainId = 1337
  expect(await evmStablecoinSender({ rpcUrl, ...settings, timeoutMs: 2000 }).checkChain!()).toBe(1337)
})

test('start-up stops when BANK_RAMP_SIMULATOR_RPC_URL reaches a mainnet (Base, 8453)', async () => {
  chainId = 8453
  const err = await makeApp({ env: { BANK_RAMP_SIMULATOR_RPC_URL: rpcUrl, BANK_RAMP_SIMULATOR_TOKEN_ADDRESS: settings.tokenAddress, BANK_RAMP_SIMULATOR_PRIVATE_KEY: settings.privateKey } }).catch((e) => e)
  expect(err).toBeInstanceOf(MainnetChainRefused)
  expect((err as Error).message).toContain('chain id 8453 (Base)')
})
