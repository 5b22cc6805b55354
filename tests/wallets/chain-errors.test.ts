/**
 * The chain gateway tells a node that could not be reached (503) from one that answered and
 * refused: no contract at the address (501), a call that reverted (422), another JSON-RPC
 * error (502). Checked with viem against a real local node and a fake RPC that answers errors.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createPublicClient, erc20Abi, http } from 'viem'
import { ChainGateway } from '@/adapters/chain'
import type { ChainEndpoint } from '@/adapters/chain/port'
import { AppError } from '@/http/errors'
import { createLogger } from '@/lib/logger'
import { startLocalChain, type LocalChain } from '@tests/helpers/evm-node'

let node: LocalChain
const gateway = new ChainGateway(createLogger({ silent: true }), 2000)
const endpoint = (rpcUrl: string): ChainEndpoint => ({ registryId: 'sepolia', family: 'evm', rpcUrl, expectedChainId: 11155111, multicall3: false })
const refusal = async (p: Promise<unknown>) => {
  try {
    await p
  } catch (err) {
    expect(err).toBeInstanceOf(AppError)
    const e = err as AppError
    return { status: e.status, code: e.code, message: e.message }
  }
  throw new Error('expected a refusal')
}

beforeAll(async () => {
  node = await startLocalChain()
})
afterAll(() => node.stop())

describe('chain errors', () => {
  test('no contract at the address on a reachable node: 501 CONTRACT_NOT_AVAILABLE naming it', async () => {
    const client = createPublicClient({ transport: http(node.url) })
    const missing = '0x000000000000000000000000000000000000dEaD'
    const r = await refusal(gateway.guard(endpoint(node.url), 'decimals', () => client.readContract({ address: missing, abi: erc20Abi, functionName: 'decimals' })))
    expect(r).toEqual({ status: 501, code: 'CONTRACT_NOT_AVAILABLE', message: `No contract at ${missing} is deployed on sepolia` })
  })

  test('a call that reverts on a reachable node: 422 CONTRACT_CALL_REVERTED naming the contract', async () => {
    const client = createPublicClient({ transport: http(node.url) })
    const r = await refusal(gateway.guard(endpoint(node.url), 'transfer', () => client.simulateContract({
      address: node.tokenAddress, abi: erc20Abi, functionName: 'transfer', args: ['0x000000000000000000000000000000000000dEaD', 10n ** 30n],
      account: '0x000000000000000000000000000000000000bEEF',
    })))
    expect(r).toEqual({ status: 422, code: 'CONTRACT_CALL_REVERTED', message: `The contract at ${node.tokenAddress} on sepolia refused the call (reverted)` })
  })

  test('a node that answers with a JSON-RPC error: 502 CHAIN_RPC_ERROR', async () => {
    const rpc = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: async (req) => Response.json({ jsonrpc: '2.0', id: ((await req.json()) as { id: number }).id, error: { code: -32601, message: 'the method eth_getBalance does not exist' } }) })
    try {
      const r = await refusal(gateway.balances(endpoint(`http://127.0.0.1:${rpc.port}`), '0x000000000000000000000000000000000000bEEF', []))
      expect(r).toEqual({ status: 502, code: 'CHAIN_RPC_ERROR', message: 'The sepolia node refused the call' })
    } finally {
      rpc.stop(true)
    }
  })

  test('an unreachable node and an HTTP error stay 503: retrying can help', async () => {
    expect(await refusal(gateway.balances(endpoint('http://127.0.0.1:9'), '0x000000000000000000000000000000000000bEEF', []))).toMatchObject({ status: 503 })
    const down = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('bad gateway', { status: 502 }) })
    try {
      expect(await refusal(gateway.balances(endpoint(`http://127.0.0.1:${down.port}`), '0x000000000000000000000000000000000000bEEF', []))).toMatchObject({ status: 503 })
    } finally {
      down.stop(true)
    }
  })
})
