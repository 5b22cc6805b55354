/**
 * Reads of an Aave v3 Pool (and its aTokens) through viem, with Aave's IPool ABI as the
 * address book publishes it (@bgd-labs/aave-address-book, MIT; never a hand-typed copy).
 * The package ships the ABI as `dist/abis/IPool.mjs` but leaves it out of its `exports` map
 * (its `./abis` entry lists other interfaces), so it is imported by its path in the
 * package: a static path, so `bun build --compile` embeds it. Aave's own @aave/core-v3 is
 * under BUSL-1.1, which a deployment could not ship (docs/operations.md, Licences).
 */
import { IPool_ABI } from '../../../node_modules/@bgd-labs/aave-address-book/dist/abis/IPool.mjs'
import { erc20Abi, type Abi, type PublicClient } from 'viem'
import type { AavePoolRpc, AaveReserveData, AaveUserAccountData, Hex } from './port'

export const AAVE_POOL_ABI: Abi = IPool_ABI

export function aavePoolRpc(client: PublicClient): AavePoolRpc {
  return {
    async userAccountData(pool, user) {
      const [totalCollateralBase, totalDebtBase, availableBorrowsBase, currentLiquidationThreshold, ltv, healthFactor] = await client.readContract({
        address: pool, abi: AAVE_POOL_ABI, functionName: 'getUserAccountData', args: [user],
      }) as readonly bigint[]
      return { totalCollateralBase, totalDebtBase, availableBorrowsBase, currentLiquidationThreshold, ltv, healthFactor } as AaveUserAccountData
    },
    async reserveData(pool, asset) {
      const r = await client.readContract({ address: pool, abi: AAVE_POOL_ABI, functionName: 'getReserveData', args: [asset] }) as {
        aTokenAddress: Hex; currentLiquidityRate: bigint; liquidityIndex: bigint; lastUpdateTimestamp: number
      }
      return { aTokenAddress: r.aTokenAddress, currentLiquidityRate: r.currentLiquidityRate, liquidityIndex: r.liquidityIndex, lastUpdateTimestamp: Number(r.lastUpdateTimestamp) } as AaveReserveData
    },
    tokenBalance: (token, owner) => client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] }),
  }
}
