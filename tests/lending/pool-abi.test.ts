/**
 * Aave's Pool as Slipway calls it, from Aave's address book (@bgd-labs/aave-address-book, MIT):
 * each network's Pool address is its market's `POOL` there, on the chain the registry names;
 * the devnet pool (scripts/devnet/SandboxAavePool.sol, whose structs are written in our own
 * source) answers the functions Slipway calls with the address book's IPool signatures, so
 * the devnet tests exercise the ABI that production uses.
 */
import { describe, expect, test } from 'bun:test'
import type { Abi, AbiFunction, AbiParameter } from 'viem'
import { AAVE_POOL_ABI } from '@/adapters/chain/aave'
import { AAVE_V3_MARKETS, aaveV3Markets, poolOf } from '@/modules/lending/pools'
import { lookupChain } from '@/adapters/chain/registry'
import sandboxAavePool from '../../scripts/devnet/SandboxAavePool.json'
import { DEVNET_AAVE_POOL, DEVNET_CHAIN_ID } from '../../scripts/devnet/chain'

/** the Pool functions Slipway reads or calls (src/adapters/chain/aave.ts, src/modules/lending/execute.ts) */
const CALLED = ['supply', 'withdraw', 'getUserAccountData', 'getReserveData', 'getReservesList']

/**
 * A parameter's ABI type with its tuples' components by name (viem reads a tuple into an
 * object by those names). The name of a function's own parameter or result is left out: it
 * changes neither the calldata nor what viem answers.
 */
const shape = (p: AbiParameter, named = true): unknown => ({
  ...(named ? { name: p.name } : {}), type: p.type,
  ...('components' in p && p.components ? { components: p.components.map((c) => shape(c)) } : {}),
})
const signature = (abi: Abi, name: string) => {
  const f = abi.find((e): e is AbiFunction => e.type === 'function' && e.name === name)
  return f && { inputs: f.inputs.map((p) => shape(p, false)), outputs: f.outputs.map((p) => shape(p, false)), stateMutability: f.stateMutability }
}

describe("Aave's Pool from the address book", () => {
  test('each network with a market has its Pool from the address book, on the chain id the registry names', async () => {
    const markets = await aaveV3Markets()
    for (const [network, name] of Object.entries(AAVE_V3_MARKETS)) {
      const market = markets[network]
      expect([network, name, market?.CHAIN_ID]).toEqual([network, name, lookupChain(network)?.network.chainId ?? -1])
      expect(await poolOf({ aavePools: {} }, network)).toBe(market!.POOL as `0x${string}`)
    }
    // the addresses docs/lending.md names
    expect(await poolOf({ aavePools: {} }, 'ethereum')).toBe('0x87870Bca3F3fD6335C3F4ce8392D69350B4fA4E2')
    expect(await poolOf({ aavePools: {} }, 'base')).toBe('0xA238Dd80C259a72e81d7e4664a9801593F98d1c5')
  })

  test('a configured pool overrides the book; a network without a market has none', async () => {
    expect(await poolOf({ aavePools: { sepolia: '0x0000000000000000000000000000000000000001' } }, 'sepolia')).toBe('0x0000000000000000000000000000000000000001')
    expect(await poolOf({ aavePools: {} }, 'polygon-amoy')).toBeNull()
  })

  test("the devnet pool sits at the address book's Sepolia Pool, on Sepolia's chain id", async () => {
    expect(DEVNET_AAVE_POOL).toBe((await poolOf({ aavePools: {} }, 'sepolia'))!)
    expect(DEVNET_CHAIN_ID).toBe(lookupChain('sepolia')!.network.chainId!)
  })

  test("the devnet pool answers every function Slipway calls with the address book's IPool signature", () => {
    for (const name of CALLED) {
      const production = signature(AAVE_POOL_ABI, name)
      expect(production).toBeDefined()
      expect([name, signature(sandboxAavePool.abi as Abi, name)]).toEqual([name, production])
    }
  })
})
