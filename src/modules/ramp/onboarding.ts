/** Bank ramp KYC: the partner's hosted onboarding session and the customer's onboarding status. */
import { RampApiError } from '../../lib/errors'
import { iso } from '../../lib/clock'
import { newId } from '../../lib/ids'
import type { Deps } from '../../deps'
import type { Ctx } from '../../context'
import type * as M from './model'
import { access, customerNotFound, envOf, partnerClient, type RampAccess } from './access'
import { customerPatch } from './events'
import { FIAT } from './pairs'
import * as repo from './repo'
import { onboardingView } from './views'

/** How long Slipway hands out the same hosted onboarding link before asking the partner for another. */
export const SESSION_TTL_MS = 60 * 60_000

export async function onboardingStatus(ctx: Ctx, input: M.EnvQuery) {
  const a = await access(ctx, envOf(input.isTestnet), 'kyc')
  return onboardingView(a.env, await repo.findCustomer(ctx.deps.database.db, a.tenantId, a.env, a.userId))
}

/**
 * Whether a stored onboarding link still opens. The embedded simulator is asked (a link it no
 * longer knows, made before it kept its state or evicted by its bound, would say "expired");
 * a partner's links are trusted for the hour they are kept.
 */
async function linkOpens(deps: Deps, a: RampAccess, url: string): Promise<boolean> {
  const sim = deps.bankRampSimulator
  return a.env === 'sandbox' && !a.ramp.baseUrl && sim ? sim.knowsOnboardingLink(url) : true
}

export async function onboardSession(ctx: Ctx, input: M.OnboardSessionBody) {
  const { deps } = ctx
  const a = await access(ctx, envOf(input.isTestnet), 'kyc')
  const now = deps.clock.now()
  const existing = await repo.findCustomer(deps.database.db, a.tenantId, a.env, a.userId)
  if (existing?.sessionUrl && existing.sessionExpiresAt && existing.sessionExpiresAt > now && await linkOpens(deps, a, existing.sessionUrl)) {
    return { url: existing.sessionUrl, expiresAt: iso(existing.sessionExpiresAt), reused: true, environment: a.env }
  }
  const customerId = existing?.id ?? newId()
  const session = await partnerClient(deps, a.tenantId, a.env, a.ramp).createOnboardingSession(customerId, {
    ReturnURL: input.returnUrl ?? deps.config.publicBaseUrl,
    FiatOptions: FIAT.map((c) => ({ FiatCurrencyCode: c })),
    CustomerType: input.customerType ?? 'Individual',
  })
  if (typeof session.HostedURL !== 'string' || !/^https?:\/\//.test(session.HostedURL)) {
    throw new RampApiError(503, 'RAMP_UNAVAILABLE', 'The bank ramp sent no onboarding address')
  }
  const expiresAt = now + SESSION_TTL_MS
  return deps.database.write(async (tx) => {
    const row = await repo.findCustomer(tx, a.tenantId, a.env, a.userId)
    // a concurrent request stored its session first: hand out that one
    if (row && row.id !== customerId && row.sessionUrl && row.sessionExpiresAt && row.sessionExpiresAt > now) {
      return { url: row.sessionUrl, expiresAt: iso(row.sessionExpiresAt), reused: true, environment: a.env }
    }
    if (row) await repo.updateCustomer(tx, a.tenantId, row.id, { sessionUrl: session.HostedURL, sessionExpiresAt: expiresAt, updatedAt: now })
    else {
      await repo.insertCustomer(tx, a.tenantId, {
        id: customerId, environment: a.env, userId: a.userId, customerType: input.customerType ?? 'Individual', verificationStatus: null, known: false,
        actionsRequired: [], regions: [], agreements: [], sessionUrl: session.HostedURL, sessionExpiresAt: expiresAt, eventVersion: 0, createdAt: now, updatedAt: now,
      })
    }
    return { url: session.HostedURL, expiresAt: iso(expiresAt), reused: false, environment: a.env }
  })
}

export async function syncStatus(ctx: Ctx, input: M.EnvBody) {
  const { deps } = ctx
  const a = await access(ctx, envOf(input.isTestnet), 'kyc')
  const c = await repo.findCustomer(deps.database.db, a.tenantId, a.env, a.userId)
  if (!c) throw customerNotFound(a.env)
  let partner
  try {
    partner = await partnerClient(deps, a.tenantId, a.env, a.ramp).getCustomer(c.id)
  } catch (err) {
    // the partner learns of the customer when the hosted onboarding starts
    if (err instanceof RampApiError && err.status === 404) return { synced: false, status: onboardingView(a.env, c) }
    throw err
  }
  const now = deps.clock.now()
  const patch = { ...customerPatch(partner as unknown as Record<string, unknown>, c.regions), updatedAt: now }
  await deps.database.write((tx) => repo.updateCustomer(tx, a.tenantId, c.id, patch))
  return { synced: true, status: onboardingView(a.env, { ...c, ...patch }) }
}
