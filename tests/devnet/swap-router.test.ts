/**
 * The devnet's Chiado node (gnosis-chiado's chain id 10200) and the sandbox swap router on it
 * (scripts/devnet/SandboxRouter.sol): the registry's gnosis-chiado USDC and EURe are real tokens
 * there, the router holds each token and the native coin, and a swap moves real balances at
 * the rates of src/sandbox/swap-aggregator/market.ts, refusing an output below the minimum.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts'
import { DEVNET_CHIADO_CHAIN_ID, DEVNET_CHIADO_EURE, DEVNET_CHIADO_USDC, DEVNET_SWAP_ROUTER, startDevnet, type Devnet } from '../../scripts/devnet/chain'
import { findToken, rateOf } from '@/sandbox/swap-aggregator/market'
import { gnosisClients, NATIVE, routerArtifact } from './gnosis'

const dir = mkdtempSync(join(tmpdir(), 'slipway-devnet-swap-'))
let devnet: Devnet
const rate = (from: string, to: string) => rateOf(findToken(DEVNET_CHIADO_CHAIN_ID, from)!, findToken(DEVNET_CHIADO_CHAIN_ID, to)!)
const out = (from: string, to: string, amount: bigint) => amount * rate(from, to).num / rate(from, to).den

beforeAll(async () => {
  devnet = await startDevnet({ port: 0, dbPath: join(dir, 'chain'), blockTime: 0 })
}, 30_000)
afterAll(async () => {
  await devnet.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('the devnet\'s Chiado node', () => {
  test('chain id 10200 (gnosis-chiado\'s) with the registry\'s USDC (6 decimals) and EURe (18) at their addresses, the router funded; .env.devnet settings point at it', async () => {
    const c = gnosisClients(devnet.chiadoUrl)
    expect(await c.pub.getChainId()).toBe(10200)
    const read = (address: `0x${string}`, functionName: string) => c.pub.readContract({ address, abi: [{ type: 'function', name: functionName, stateMutability: 'view', inputs: [], outputs: [{ type: functionName === 'decimals' ? 'uint8' : 'string' }] }], functionName } as never)
    expect(await read(DEVNET_CHIADO_USDC, 'decimals')).toBe(6)
    expect(await read(DEVNET_CHIADO_EURE, 'decimals')).toBe(18)
    expect(await read(DEVNET_CHIADO_EURE, 'symbol')).toBe('EURe')
    expect(await c.balance(DEVNET_CHIADO_USDC, DEVNET_SWAP_ROUTER)).toBe(1_000_000_000n * 10n ** 6n)
    expect(await c.balance(DEVNET_CHIADO_EURE, DEVNET_SWAP_ROUTER)).toBe(1_000_000_000n * 10n ** 18n)
    expect(await c.balance(NATIVE, DEVNET_SWAP_ROUTER)).toBe(100_000n * 10n ** 18n)
    expect(devnet.env).toMatchObject({ RPC_URL_GNOSIS_CHIADO: devnet.chiadoUrl, SANDBOX_SWAP_ROUTER_ADDRESS: DEVNET_SWAP_ROUTER, SANDBOX_SWAP_CHAINS: '10200' })
    // nothing of the devnet's points gnosis mainnet anywhere
    expect(devnet.env.RPC_URL_GNOSIS).toBeUndefined()
    // Sepolia's node is unchanged
    expect(devnet.env.RPC_URL_SEPOLIA).toBe(devnet.url)
  })

  test('USDC → EURe: the router takes the USDC after approve and pays the recipient EURe from its own balance', async () => {
    const payer = gnosisClients(devnet.chiadoUrl)
    const recipient = privateKeyToAccount(generatePrivateKey()).address
    await payer.fund(DEVNET_CHIADO_USDC, 100_000_000n)
    await payer.approve(DEVNET_CHIADO_USDC, DEVNET_SWAP_ROUTER, 25_000_000n)
    const routerUsdc = await payer.balance(DEVNET_CHIADO_USDC, DEVNET_SWAP_ROUTER)
    const routerEure = await payer.balance(DEVNET_CHIADO_EURE, DEVNET_SWAP_ROUTER)
    const expected = out('USDC', 'EURe', 25_000_000n)
    expect(expected).toBeGreaterThan(23n * 10n ** 18n) // 25 USD at 1.08 USD a euro
    await payer.swap(DEVNET_SWAP_ROUTER, [DEVNET_CHIADO_USDC, DEVNET_CHIADO_EURE, 25_000_000n, expected, recipient])
    expect(await payer.balance(DEVNET_CHIADO_USDC)).toBe(75_000_000n)
    expect(await payer.balance(DEVNET_CHIADO_EURE, recipient)).toBe(expected)
    expect(await payer.balance(DEVNET_CHIADO_USDC, DEVNET_SWAP_ROUTER)).toBe(routerUsdc + 25_000_000n)
    expect(await payer.balance(DEVNET_CHIADO_EURE, DEVNET_SWAP_ROUTER)).toBe(routerEure - expected)
  }, 30_000)

  test('EURe → the native coin, and the native coin → USDC', async () => {
    const payer = gnosisClients(devnet.chiadoUrl)
    const recipient = privateKeyToAccount(generatePrivateKey()).address
    await payer.fund(DEVNET_CHIADO_EURE, 10n * 10n ** 18n)
    await payer.approve(DEVNET_CHIADO_EURE, DEVNET_SWAP_ROUTER, 10n * 10n ** 18n)
    await payer.swap(DEVNET_SWAP_ROUTER, [DEVNET_CHIADO_EURE, NATIVE, 10n * 10n ** 18n, 0n, recipient])
    expect(await payer.balance(NATIVE, recipient)).toBe(out('EURe', 'xDAI', 10n * 10n ** 18n))
    expect(await payer.balance(NATIVE, recipient)).toBe(108n * 10n ** 17n)
    expect(await payer.balance(DEVNET_CHIADO_EURE)).toBe(0n)

    await payer.swap(DEVNET_SWAP_ROUTER, [NATIVE, DEVNET_CHIADO_USDC, 2n * 10n ** 17n, 0n, recipient], 2n * 10n ** 17n)
    expect(await payer.balance(DEVNET_CHIADO_USDC, recipient)).toBe(200_000n)
  }, 30_000)

  test('an output below minAmountOut, a native swap without its value, or no approval: reverted, nothing moves', async () => {
    const payer = gnosisClients(devnet.chiadoUrl)
    const recipient = privateKeyToAccount(generatePrivateKey()).address
    await payer.fund(DEVNET_CHIADO_USDC, 10_000_000n)
    await payer.approve(DEVNET_CHIADO_USDC, DEVNET_SWAP_ROUTER, 10_000_000n)
    const exact = out('USDC', 'EURe', 10_000_000n)
    const simulate = (args: readonly unknown[], value = 0n) => payer.pub.simulateContract({ account: payer.account, address: DEVNET_SWAP_ROUTER, abi: routerArtifact.abi, functionName: 'swap', args, value } as never)
    await expect(simulate([DEVNET_CHIADO_USDC, DEVNET_CHIADO_EURE, 10_000_000n, exact + 1n, recipient])).rejects.toThrow(/below minAmountOut/)
    await expect(simulate([NATIVE, DEVNET_CHIADO_USDC, 10n ** 18n, 0n, recipient])).rejects.toThrow(/value/)
    await expect(simulate([DEVNET_CHIADO_USDC, DEVNET_CHIADO_EURE, 20_000_000n, 0n, recipient])).rejects.toThrow(/allowance/)
    expect(await payer.balance(DEVNET_CHIADO_USDC)).toBe(10_000_000n)
    expect(await payer.balance(DEVNET_CHIADO_EURE, recipient)).toBe(0n)
  }, 30_000)

  test('a restart on the same folders keeps the router and its balances, set up once', async () => {
    const c = gnosisClients(devnet.chiadoUrl)
    const before = await c.balance(DEVNET_CHIADO_EURE, DEVNET_SWAP_ROUTER)
    await devnet.stop()
    devnet = await startDevnet({ port: 0, dbPath: join(dir, 'chain'), blockTime: 0 })
    const again = gnosisClients(devnet.chiadoUrl)
    expect(await again.balance(DEVNET_CHIADO_EURE, DEVNET_SWAP_ROUTER)).toBe(before)
  }, 30_000)
})

