/** The tenant admin's verbs (gas policies, usage) and the user's own usage. */
import { iso } from '../../lib/clock'
import { isUuid } from '../../lib/ids'
import { NotFoundError } from '../../lib/errors'
import type { Ctx } from '../../context'
import { lookupChain } from '../tokens'
import { operatorTenantId, tenantOf } from '../tenants'
import { findUser } from '../users'
import { policyInvalid } from './errors'
import type { GasPolicyBody } from './model'
import { countersOf, findPolicy, listPolicies, upsertPolicy } from './repo'
import type { GasPolicyRow } from './schema'
import { hasSigner } from './signer'
import { dayOf, monthOf } from './sponsorship'
import { formatUsd, parseUsd } from './usd'

async function available(ctx: Pick<Ctx, 'deps'>, network: string) {
  const c = ctx.deps.config
  return !!(c.bundlerUrls[network] && c.paymasterAddresses[network]) && hasSigner(ctx.deps, network)
}

async function policyView(ctx: Pick<Ctx, 'deps'>, p: GasPolicyRow) {
  return {
    network: p.network, enabled: p.enabled, userDailyLimitWei: p.userDailyLimitWei, tenantMonthlyBudgetWei: p.tenantMonthlyBudgetWei,
    maxPerOperationWei: p.maxPerOperationWei, userDailyLimitUsd: p.userDailyLimitUsd, tenantMonthlyBudgetUsd: p.tenantMonthlyBudgetUsd, maxPerOperationUsd: p.maxPerOperationUsd,
    operations: p.operations, allowlist: p.allowlist, sponsorshipAvailable: await available(ctx, p.network), updatedAt: iso(p.updatedAt),
  }
}

/** a USD limit as given (canonical: `1.50` is kept as `1.5`), else the current one, else none */
const keep = (given: string | null | undefined, current: string | null | undefined) =>
  given !== undefined ? (given === null ? null : formatUsd(parseUsd(given))) : current ?? null

/** the registry id of an EVM network named by the route, else 400 GAS_POLICY_INVALID */
function evmNetwork(id: string): string {
  const found = lookupChain(id)
  if (!found || found.chain.family !== 'evm') throw policyInvalid(`${id} is not an EVM network of the registry (such as ethereum, sepolia, base)`)
  return found.network.id
}

export async function listGasPolicies(ctx: Ctx, tenantId: string) {
  const id = await operatorTenantId(ctx, tenantId)
  return { data: await Promise.all((await listPolicies(ctx.deps.database.db, id)).map((p) => policyView(ctx, p))) }
}

/** Sets the tenant's policy for one network (what is left out keeps its value, or the default: no limit, no kinds, no allowlist). */
export async function putGasPolicy(ctx: Ctx, tenantId: string, networkId: string, body: GasPolicyBody) {
  const id = await operatorTenantId(ctx, tenantId)
  const network = evmNetwork(networkId)
  const now = ctx.deps.clock.now()
  const allowlist = (body.allowlist ?? []).map((a) => ({ contract: a.contract.toLowerCase(), selectors: [...new Set(a.selectors.map((s) => s.toLowerCase()))] }))
  if (body.allowlist && new Set(allowlist.map((a) => a.contract)).size !== allowlist.length) throw policyInvalid('a contract appears twice in the allowlist')
  const row = await ctx.deps.database.write(async (tx) => {
    const cur = await findPolicy(tx, id, network)
    const next: GasPolicyRow = {
      tenantId: id, network, enabled: body.enabled,
      userDailyLimitWei: body.userDailyLimitWei !== undefined ? body.userDailyLimitWei : cur?.userDailyLimitWei ?? null,
      tenantMonthlyBudgetWei: body.tenantMonthlyBudgetWei !== undefined ? body.tenantMonthlyBudgetWei : cur?.tenantMonthlyBudgetWei ?? null,
      maxPerOperationWei: body.maxPerOperationWei !== undefined ? body.maxPerOperationWei : cur?.maxPerOperationWei ?? null,
      userDailyLimitUsd: keep(body.userDailyLimitUsd, cur?.userDailyLimitUsd),
      tenantMonthlyBudgetUsd: keep(body.tenantMonthlyBudgetUsd, cur?.tenantMonthlyBudgetUsd),
      maxPerOperationUsd: keep(body.maxPerOperationUsd, cur?.maxPerOperationUsd),
      operations: body.operations ? [...new Set(body.operations)] : cur?.operations ?? [],
      allowlist: body.allowlist ? allowlist : cur?.allowlist ?? [],
      createdAt: cur?.createdAt ?? now, updatedAt: now,
    }
    await upsertPolicy(tx, next)
    return next
  })
  return policyView(ctx, row)
}

async function usageOf(ctx: Pick<Ctx, 'deps'>, tenantId: string, userId: string | null) {
  const now = ctx.deps.clock.now()
  const day = dayOf(now)
  const month = monthOf(now)
  const rows = await countersOf(ctx.deps.database.db, tenantId, userId ? `user:${userId}` : 'tenant', [day, month])
  type Line = { network: string; dayWei: string; dayUsd: string; dayOperations: number; monthWei: string; monthUsd: string; monthOperations: number }
  const byNetwork = new Map<string, Line>()
  for (const r of rows) {
    const line = byNetwork.get(r.network) ?? { network: r.network, dayWei: '0', dayUsd: '0', dayOperations: 0, monthWei: '0', monthUsd: '0', monthOperations: 0 }
    if (r.period === day) Object.assign(line, { dayWei: r.totalWei, dayUsd: r.totalUsd, dayOperations: r.operations })
    else Object.assign(line, { monthWei: r.totalWei, monthUsd: r.totalUsd, monthOperations: r.operations })
    byNetwork.set(r.network, line)
  }
  return { scope: userId ? 'user' as const : 'tenant' as const, userId, day, month, networks: [...byNetwork.values()].sort((a, b) => a.network.localeCompare(b.network)) }
}

/** The tenant's usage, or one of its users' (`userId`; another tenant's user answers 404). */
export async function tenantGasUsage(ctx: Ctx, tenantId: string, userId: string | undefined) {
  const id = await operatorTenantId(ctx, tenantId)
  if (userId !== undefined && (!isUuid(userId) || !(await findUser(ctx.deps.database.db, id, userId)))) throw new NotFoundError('User not found')
  return usageOf(ctx, id, userId ?? null)
}

/** The signed-in user's own usage. */
export async function myGasUsage(ctx: Ctx) {
  const tenant = tenantOf(ctx)
  return usageOf(ctx, tenant.id, ctx.actor.userId)
}
