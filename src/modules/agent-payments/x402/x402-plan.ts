/** What the x402 rail needs of an execution: its chain and token (to read), its wallet and what it allows (to pay). */
import type { ChainEndpoint } from '../../../adapters/chain/port'
import { tenantSettings, type StoredSettings } from '../../tenants'
import { endpointFor, lookupChain } from '../../tokens'
import { isCustodial } from '../../transactions'
import { findWallet } from '../../wallets'
import type { WalletRow } from '../../wallets'
import type { Executor } from '../../../db/client'
import type { Scope } from '../agents/credentials'
import { payeeAt } from '../policies/judging'
import { payeeAmong, payeeRefusals } from '../policies/payees'
import { toUnits } from '../policies/policy'
import * as repo from '../repo'
import type { AgentRow, ExecutionRow } from '../schema'
import { X402_SETTLE_TOPIC } from '../topics'
import type { Allowed } from './x402-checks'

export const settleJob = (tenantId: string, executionId: string, runAt: number) =>
  ({ id: `ap-x402-settle:${executionId}:${runAt}`, topic: X402_SETTLE_TOPIC, tenantId, payload: { executionId }, runAt })

/** Where an execution's token is read: enough to decide a payment, whatever became of the wallet since. */
export interface ChainView {
  endpoint: ChainEndpoint
  chainId: number
  token: { address: string; decimals: number; symbol: string }
  settings: StoredSettings
}

export interface Plan extends ChainView {
  wallet: WalletRow
  /** 10^(18 - decimals): from the token's units to the 18-place units of amounts */
  scale: bigint
  allowed: Allowed
}

/** The execution's network and token on the tenant's RPC; null when it is no EVM token of the registry. */
export async function chainOf(scope: Pick<Scope, 'deps' | 'tenant'>, row: ExecutionRow): Promise<ChainView | null> {
  const { deps } = scope
  const resolved = lookupChain(row.network ?? '')
  const token = resolved?.network.tokens.find((tk) => tk.symbol === row.currency && tk.address !== null)
  const chainId = resolved?.network.chainId
  if (!resolved || !token?.address || !chainId || resolved.chain.family !== 'evm') return null
  const { settings } = tenantSettings(deps, scope.tenant)
  const { endpoint } = endpointFor(deps.config, settings, resolved.chain.id, resolved.network.isTestnet)
  return { endpoint, chainId, token: { address: token.address, decimals: token.decimals, symbol: token.symbol }, settings }
}

/** The agent's policy as it is now. */
const policyOf = (db: Executor, agent: AgentRow) => agent.policyId ? repo.findPolicy(db, agent.tenantId, agent.policyId) : Promise.resolve(undefined)

/** What the rail needs to pay an execution in `processing`, or why it cannot. */
export async function planOf(scope: Pick<Scope, 'deps' | 'tenant'>, row: ExecutionRow): Promise<Plan | { stop: string }> {
  const { deps } = scope
  const db = deps.database.db
  const agent = await repo.findAgent(db, row.tenantId, row.agentId)
  const wallet = agent ? await findWallet(db, row.tenantId, agent.walletId) : undefined
  if (!wallet) return { stop: 'X402_WALLET_GONE: The agent\'s wallet is gone' }
  if (!isCustodial(wallet)) return { stop: 'X402_WALLET_NOT_CUSTODIAL: The x402 rail signs with the agent\'s custodial wallet; this wallet\'s key is not held by Slipway' }
  const view = await chainOf(scope, row)
  if (!view) return { stop: `X402_NETWORK_UNSUPPORTED: ${row.currency} on ${row.network} cannot be paid over x402 (EVM networks only)` }
  // the payee rule, with the policy and the merchants as they are now: the payTo is known only from the 402 answer
  const policy = await policyOf(db, agent!)
  if (!policy) return { stop: 'POLICY_MISSING: The agent has no policy now: it cannot pay' }
  const merchants = await repo.merchantsOnNetwork(db, row.tenantId, row.network!)
  const scale = 10n ** BigInt(18 - view.token.decimals)
  const allowed: Allowed = {
    network: `eip155:${view.chainId}`, chainId: view.chainId, asset: view.token.address,
    payTo: row.merchantId ? row.payToAddress : null,
    payeeRefusals: (payTo) => payeeRefusals(policy, payeeAmong(merchants, payTo)),
    maxUnits: toUnits(row.amount) / scale,
    maxSeconds: deps.config.agentPaymentsX402MaxAuthorizationSeconds,
  }
  return { ...view, wallet, scale, allowed }
}

/**
 * The payee rule again in the transaction that stores the authorization, before its header
 * leaves: a merchant disabled or blocked since the 402 answer was read refuses it there.
 */
export async function payeeRefusedIn(tx: Executor, row: ExecutionRow, payTo: string): Promise<string[]> {
  const agent = await repo.findAgent(tx, row.tenantId, row.agentId)
  const policy = agent ? await policyOf(tx, agent) : undefined
  if (!policy) return ['the agent has no policy now']
  return payeeRefusals(policy, await payeeAt(tx, row.tenantId, row.network!, payTo))
}
