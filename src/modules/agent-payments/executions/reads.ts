/**
 * What creating an execution reads before its write, in one read batch (`readEach`: one request
 * to a server, where each read was a request of its own, and a request costs sqld CPU of its own
 * whatever it carries; docs/benchmarks.md, "What sqld charges per request"): the execution of the idempotency key, the agent,
 * the mandate, the merchant, the agent's wallet and policy, the merchants at the merchant's payTo,
 * the webhooks its events go to and the mandate's running totals. The wallet and the policy are
 * read by the agent's ids and the payees by the merchant's, as subqueries: on a server all are one
 * snapshot. Elsewhere (a file, a replica) they are read one by one, so what follows checks that
 * the wallet and the policy are the agent's row's; the write batch's conditions re-check the
 * agent, policy, merchant, payees, mandate and the limits' totals as read (reserve.ts) whatever
 * the topology.
 */
import { readEach } from '../../../db/batch'
import { eventTargetsQuery, type WebhookRow } from '../../webhooks'
import { findWallet, walletQuery, type WalletRow } from '../../wallets'
import type { Scope } from '../agents/credentials'
import { ENVIRONMENTS } from '../record-types'
import * as repo from '../repo'
import type { AgentRow, ExecutionRow, MandateRow, MerchantRow, PolicyRow } from '../schema'

/** What the first judgement may take as read instead of reading it again (reserve.ts). */
export interface ReadForJudging {
  policy: PolicyRow | undefined
  /** the merchants at the merchant's payTo (the address compared without case) */
  payees: Array<{ id: string; address: string; status: MerchantRow['status'] }> | undefined
  /** the tenant's platform webhooks of every environment and the group's own */
  hooks: WebhookRow[]
  /** the mandate's open-ended running totals (all time, and its periods) */
  mandateTotals: repo.TotalsRow[] | undefined
}

export interface ExecutionReads {
  seen: ExecutionRow | undefined
  agent: AgentRow | undefined
  mandate: MandateRow | undefined
  merchant: MerchantRow | undefined
  wallet: WalletRow | undefined
  judging: ReadForJudging
}

export async function readForExecution(scope: Scope, input: { agentId: string; mandateId?: string; merchantId?: string; idempotencyKey?: string }): Promise<ExecutionReads> {
  const db = scope.deps.database.db
  const t = scope.tenantId
  const r = await readEach(scope.deps.database, {
    seen: input.idempotencyKey ? repo.executionByKeyQuery(db, t, input.idempotencyKey) : undefined,
    agent: repo.agentQuery(db, t, input.agentId),
    mandate: input.mandateId === undefined ? undefined : repo.mandateQuery(db, t, input.mandateId),
    merchant: input.merchantId === undefined ? undefined : repo.merchantQuery(db, t, input.merchantId),
    wallet: walletQuery(db, t, repo.agentWalletId(t, input.agentId)),
    policy: repo.policyOfAgentQuery(db, t, input.agentId),
    payees: input.merchantId === undefined ? undefined : repo.merchantsAtMerchantQuery(db, t, input.merchantId),
    hooks: eventTargetsQuery(db, t, [...ENVIRONMENTS], 'agent_payments'),
    mandateTotals: input.mandateId === undefined ? undefined : repo.totalsQuery(db, t, { kind: 'mandate', id: input.mandateId }, [{ start: 0, end: null }]),
  })
  const agent = r.agent[0]
  let wallet = r.wallet[0]
  // read apart (not a server): the wallet read may be of another row of the agent than the one read; read it by the agent's
  if (agent && wallet?.id !== agent.walletId) wallet = await findWallet(db, t, agent.walletId)
  return {
    seen: r.seen?.[0], agent, mandate: r.mandate?.[0], merchant: r.merchant?.[0], wallet,
    judging: { policy: r.policy[0], payees: r.payees, hooks: r.hooks, mandateTotals: r.mandateTotals },
  }
}
