/**
 * Reads of an Aave v3 Pool (and its aTokens) through viem, with Aave's own IPool ABI from
 * @aave/core-v3 (never a hand-typed copy). Loaded with the first lending read (ChainGateway.aavePool).
 */
import ipool from '@aave/core-v3/artifacts/contracts/interfaces/IPool.sol/IPool.json' with { type: 'json' }
import { erc20Abi, type Abi, type PublicClient } from 'viem'
import type { AavePoolRpc, AaveReserveData, AaveUserAccountData, Hex } from './port'

export const AAVE_POOL_ABI = ipool.abi as Abi

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
