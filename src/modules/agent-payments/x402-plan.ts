/** What the x402 rail needs of an execution: its wallet, token, tenant settings and what it allows (x402.ts, x402-settle.ts). */
import type { Deps } from '../../deps'
import { findTenant } from '../tenants/repo'
import type { StoredSettings } from '../tenants/settings'
import { settingsOf } from '../tenants/service'
import { endpointFor, lookupChain } from '../tokens/registry'
import { isCustodial } from '../transactions/shared'
import { findWallet } from '../wallets/repo'
import type { WalletRow } from '../wallets/schema'
import type { Scope } from './credentials'
import { toUnits } from './policy'
import * as repo from './repo'
import type { ExecutionRow } from './schema'
import { X402_SETTLE_TOPIC } from './topics'
import type { Allowed } from './x402-checks'

export const systemScope = (deps: Deps, tenantId: string, requestId: string): Scope => ({ deps, tenantId, actor: { type: 'system', id: null }, requestId })
export const settleJob = (tenantId: string, executionId: string, runAt: number) =>
  ({ id: `ap-x402-settle:${executionId}:${runAt}`, topic: X402_SETTLE_TOPIC, tenantId, payload: { executionId }, runAt })

export interface Plan {
  wallet: WalletRow
  token: { address: string; decimals: number; symbol: string }
  settings: StoredSettings
  /** 10^(18 - decimals): from the token's units to the 18-place units of amounts */
  scale: bigint
  allowed: Allowed
}

/** What the rail needs of an execution in `processing`, or why it cannot pay it. */
export async function planOf(deps: Deps, row: ExecutionRow): Promise<Plan | { stop: string }> {
  const db = deps.database.db
  const agent = await repo.findAgent(db, row.tenantId, row.agentId)
  const wallet = agent ? await findWallet(db, row.tenantId, agent.walletId) : undefined
  if (!wallet) return { stop: 'X402_WALLET_GONE: The agent\'s wallet is gone' }
  if (!isCustodial(wallet)) return { stop: 'X402_WALLET_NOT_CUSTODIAL: The x402 rail signs with the agent\'s custodial wallet; this wallet\'s key is not held by Slipway' }
  const resolved = lookupChain(row.network ?? '')
  const token = resolved?.network.tokens.find((tk) => tk.symbol === row.currency && tk.address !== null)
  const chainId = resolved?.network.chainId
  if (!resolved || !token || !chainId || resolved.chain.family !== 'evm') return { stop: `X402_NETWORK_UNSUPPORTED: ${row.currency} on ${row.network} cannot be paid over x402 (EVM networks only)` }
  const tenant = (await findTenant(db, row.tenantId))!
  const settings = settingsOf({ deps }, tenant)
  const scale = 10n ** BigInt(18 - token.decimals)
  const allowed: Allowed = {
    network: `eip155:${chainId}`, chainId, asset: token.address!,
    payTo: row.merchantId ? row.payToAddress : null, maxUnits: toUnits(row.amount) / scale, maxSeconds: deps.config.agentPaymentsX402MaxAuthorizationSeconds,
  }
  return { wallet, token: { address: token.address!, decimals: token.decimals, symbol: token.symbol }, settings, scale, allowed }
}

export async function rpcOf(deps: Deps, plan: Pick<Plan, 'settings' | 'wallet'>) {
  const { endpoint } = endpointFor(deps.config, plan.settings, plan.wallet.chain, plan.wallet.isTestnet)
  return { endpoint, rpc: await deps.chain.evmRpc(endpoint) }
}
