/**
 * The sandbox faucet: gas (and, on the devnet, the test stablecoin) for a user's own
 * testnet wallet, from a funded key on the faucet's chain (src/adapters/chain/faucet.ts).
 * `npm run devnet` configures it (SANDBOX_FAUCET_RPC_URL, SANDBOX_FAUCET_PRIVATE_KEY), so a
 * sandbox payout or send never fails for want of gas.
 */
import type { Faucet } from '../../adapters/chain/faucet'
import type { Ctx } from '../../context'
import { AppError, BadRequestError, refusedField } from '../../lib/errors'
import { tenantOf } from '../tenants'
import { activeTokens, chainByFamily } from '../tokens'
import { wallets } from '../wallets'
import { GAS_TARGET_WEI, STABLECOIN_MAX } from './limits'

export interface FaucetBody {
  walletId: string
  stablecoin?: string
}

export const faucetNotConfigured = () => new AppError(
  503,
  'ServiceUnavailableError',
  'The sandbox faucet is not configured: run `npm run devnet` (it sets SANDBOX_FAUCET_RPC_URL and SANDBOX_FAUCET_PRIVATE_KEY) and restart',
  { details: { code: 'SANDBOX_FAUCET_NOT_CONFIGURED' } },
)

export async function fundWallet(ctx: Ctx, faucet: Faucet | undefined, input: FaucetBody) {
  const w = await wallets.ownWallet(ctx, input.walletId)
  if (!faucet) throw faucetNotConfigured()
  const chain = chainByFamily(w.chain)
  if (!chain || chain.family !== 'evm' || !w.isTestnet) throw new BadRequestError('The sandbox faucet funds EVM testnet wallets (isTestnet: true)')
  const network = ctx.deps.config.sandboxFaucetNetwork
  if (chain.testnet.id !== network) throw new BadRequestError(`The sandbox faucet pays on ${network}; this wallet is on ${chain.testnet.id}`, { details: { code: 'SANDBOX_FAUCET_NETWORK', network } })
  const amount = input.stablecoin === undefined ? 0n : BigInt(input.stablecoin)
  if (amount > STABLECOIN_MAX) throw refusedField(`stablecoin is at most ${STABLECOIN_MAX} (10,000 with 6 decimals)`, '/stablecoin')
  const tenant = tenantOf(ctx)
  const token = amount > 0n ? activeTokens(tenant.settings, chain, chain.testnet).find((tk) => tk.symbol === 'USDC' && tk.address !== null) : undefined
  if (amount > 0n && !token) throw new BadRequestError(`USDC is not active on ${network} for this tenant`)
  const run = async <T>(what: string, fn: () => Promise<T>) => {
    try {
      return await fn()
    } catch (err) {
      ctx.deps.logger.warn('sandbox faucet failed', { what, error: (err as Error).message.split('\n')[0] })
      throw new AppError(503, 'ServiceUnavailableError', `The sandbox faucet could not ${what}: is the devnet running (npm run devnet)?`, { details: { code: 'SANDBOX_FAUCET_UNAVAILABLE' } })
    }
  }
  const balance = await run('read the wallet\'s balance', () => faucet.nativeBalance(w.address))
  const topUp = balance < GAS_TARGET_WEI ? GAS_TARGET_WEI - balance : 0n
  const native = topUp > 0n ? { amount: topUp.toString(), txHash: await run('send gas', () => faucet.sendNative(w.address, topUp)) } : null
  const stablecoin = token && amount > 0n
    ? { tokenAddress: token.address!, symbol: token.symbol, amount: amount.toString(), txHash: await run('mint the stablecoin', () => faucet.mintToken(token.address!, w.address, amount)) }
    : null
  return { walletId: w.id, address: w.address, network, native, stablecoin }
}
