/**
 * Card onramp sessions (docs/card-onramp.md): opened with the provider for a user's wallet, or
 * for a tenant's own wallet on behalf of its end user (`externalId`); read and listed from
 * Slipway's record, which the provider's signed events keep current (events.ts). The
 * provider's client secret is never stored, answered or logged: the user is sent to the
 * provider's hosted page (`redirectUrl`).
 */
import type { Ctx, SignedTenant } from '../../context'
import type { Deps } from '../../deps'
import { AppError, BadRequestError, ForbiddenError, NotFoundError, ServiceUnavailableError } from '../../lib/errors'
import type { OnrampEndpoint } from '../../adapters/card-onramp/stripe'
import { iso } from '../../lib/clock'
import { isUuid, newId } from '../../lib/ids'
import { tenantOf, findTenant, settingsOf, cardOnrampAad, type StoredSettings } from '../tenants'
import { chainByFamily, lookupChain } from '../tokens'
import { wallets } from '../wallets'
import type { CreateBody, ListQuery, TenantCreateBody } from './model'
import * as repo from './repo'
import { dec } from './amounts'

export type Env = 'sandbox' | 'production'

/** Stripe's network names for the chains the onramp delivers to. */
const NETWORKS: Record<string, string> = { ethereum: 'ethereum', polygon: 'polygon', base: 'base', avalanche: 'avalanche', solana: 'solana' }

export function sessionView(r: repo.CardSessionRow) {
  return {
    id: r.id,
    environment: r.environment,
    status: r.status,
    providerStatus: r.providerStatus,
    providerSessionId: r.providerSessionId,
    pair: { sourceCurrency: r.sourceCurrency, destinationCurrency: r.destinationCurrency, destinationNetwork: r.destinationNetwork },
    destination: { walletId: r.walletId, address: r.address, chain: r.chain },
    customer: r.externalId,
    requested: { sourceAmount: dec(r.requestedSourceAmount), destinationAmount: dec(r.requestedDestinationAmount) },
    amounts: r.amounts ?? null,
    transactionId: r.transactionId,
    failureCode: r.failureCode,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
  }
}

/** The provider of a tenant's environment with its webhook secret; 403/503 when the tenant cannot use it. */
export function providerOf(deps: Deps, tenantId: string, settings: StoredSettings, env: Env): OnrampEndpoint & { webhookKey: string } {
  if (!settings.cardOnramp.enabled) throw new ForbiddenError('This tenant does not use the card onramp (cardOnramp.enabled)', { code: 'CARD_ONRAMP_NOT_ENABLED' })
  const e = settings.cardOnramp[env]
  if (!e.connected) throw new ForbiddenError(`The card onramp is not connected in ${env} (cardOnramp.${env}.connected)`, { code: 'CARD_ONRAMP_NOT_ENABLED', details: { environment: env } })
  const sandbox = deps.cardOnrampSandbox
  if (env === 'sandbox' && !e.baseUrl) {
    if (!sandbox) throw new ServiceUnavailableError('No sandbox card onramp provider runs here and the tenant names none (cardOnramp.sandbox.baseUrl)', { code: 'CARD_ONRAMP_NOT_CONFIGURED' })
    const c = sandbox.credentials(tenantId)
    return { baseUrl: sandbox.apiBaseUrl, apiKey: c.apiKey, webhookKey: c.webhookKey, fetch: sandbox.providerFetch }
  }
  if (!e.baseUrl || !e.apiKeySealed || !e.webhookKeySealed) {
    throw new ServiceUnavailableError(`The card onramp in ${env} needs baseUrl, apiKey and webhookKey (cardOnramp.${env})`, { code: 'CARD_ONRAMP_NOT_CONFIGURED' })
  }
  return {
    baseUrl: e.baseUrl,
    apiKey: deps.sealer.open(e.apiKeySealed, cardOnrampAad(tenantId, env, 'apiKey')),
    webhookKey: deps.sealer.open(e.webhookKeySealed, cardOnrampAad(tenantId, env, 'webhookKey')),
  }
}

interface Opening {
  tenantId: string
  settings: StoredSettings
  env: Env
  userId: string | null
  externalId: string | null
  walletId: string | null
  address: string
  chain: string
  amounts: Pick<CreateBody, 'sourceCurrency' | 'sourceAmount' | 'destinationAmount' | 'destinationCurrency'>
}

async function open(deps: Deps, o: Opening) {
  if (o.amounts.sourceAmount && o.amounts.destinationAmount) throw new BadRequestError('Send sourceAmount or destinationAmount, not both', { code: 'CARD_ONRAMP_AMOUNTS' })
  const network = NETWORKS[o.chain]
  if (!network) throw new BadRequestError(`The card onramp does not deliver to ${o.chain} (it does to ${Object.keys(NETWORKS).join(', ')})`, { code: 'CARD_ONRAMP_CHAIN_UNSUPPORTED' })
  const provider = providerOf(deps, o.tenantId, o.settings, o.env)
  const id = newId()
  const destinationCurrency = o.amounts.destinationCurrency ?? 'usdc'
  const s = await deps.cardOnramp.create(provider, {
    walletAddress: o.address, destinationNetwork: network, destinationCurrency,
    sourceCurrency: o.amounts.sourceCurrency, sourceAmount: o.amounts.sourceAmount, destinationAmount: o.amounts.destinationAmount,
    metadata: { slipway_session_id: id, slipway_tenant_id: o.tenantId },
  })
  if (typeof s?.id !== 'string' || typeof s.status !== 'string') throw new AppError(502, 'BadGatewayError', 'The card onramp provider answered no session', { code: 'CARD_ONRAMP_BAD_ANSWER' })
  const now = deps.clock.now()
  const row: repo.CardSessionRow = {
    id, tenantId: o.tenantId, environment: o.env, userId: o.userId, externalId: o.externalId, walletId: o.walletId, address: o.address, chain: o.chain,
    destinationNetwork: network, destinationCurrency, sourceCurrency: o.amounts.sourceCurrency ?? s.transaction_details?.source_currency ?? null,
    requestedSourceAmount: o.amounts.sourceAmount ?? null, requestedDestinationAmount: o.amounts.destinationAmount ?? null,
    status: 'initialized', providerStatus: s.status, providerSessionId: s.id, amounts: null, transactionId: null, failureCode: null,
    providerEventAt: null, providerEventId: null, createdAt: now, updatedAt: now,
  }
  await deps.database.write((tx) => repo.insertSession(tx, row))
  return { ...sessionView(row), redirectUrl: s.redirect_url ?? `${provider.baseUrl}/session/${s.id}` }
}

export async function createForUser(ctx: Ctx, input: CreateBody) {
  const tenant = tenantOf(ctx)
  const w = await wallets.ownWallet(ctx, input.walletId)
  return open(ctx.deps, {
    tenantId: tenant.id, settings: tenant.settings, env: w.isTestnet ? 'sandbox' : 'production', userId: ctx.actor.userId, externalId: null,
    walletId: w.id, address: w.address, chain: w.chain, amounts: input,
  })
}

export async function createForTenant(deps: Deps, tenant: SignedTenant, input: TenantCreateBody) {
  const settings = settingsOf({ deps }, tenant)
  const chain = lookupChain(input.chain)
  const family = chain && chainByFamily(chain.chain.id)
  if (!chain || !family) throw new BadRequestError(`Unsupported chain: ${input.chain}`)
  const address = await wallets.normalizeAddress(family.family, input.walletAddress)
  if (!address) throw new BadRequestError(`walletAddress is not a valid ${chain.chain.id} address`)
  return open(deps, {
    tenantId: tenant.id, settings, env: input.isTestnet || chain.network.isTestnet ? 'sandbox' : 'production', userId: null, externalId: input.externalId,
    walletId: null, address, chain: chain.chain.id, amounts: input,
  })
}

const notFound = () => new NotFoundError('Card onramp session not found', { code: 'CARD_ONRAMP_SESSION_NOT_FOUND' })

export async function readForUser(ctx: Ctx, id: string) {
  const tenant = tenantOf(ctx)
  const r = isUuid(id) ? await repo.findSession(ctx.deps.database.db, tenant.id, id) : undefined
  if (!r || r.userId !== ctx.actor.userId) throw notFound()
  return sessionView(r)
}

export async function readForTenant(deps: Deps, tenant: SignedTenant, id: string) {
  const r = isUuid(id) ? await repo.findSession(deps.database.db, tenant.id, id) : undefined
  if (!r || r.externalId === null) throw notFound()
  return sessionView(r)
}

export async function listForUser(ctx: Ctx, q: ListQuery) {
  const tenant = tenantOf(ctx)
  const limit = q.limit ?? 20
  const offset = q.offset ?? 0
  const { rows, total } = await repo.listSessions(ctx.deps.database.db, tenant.id, { userId: ctx.actor.userId }, limit, offset)
  return { sessions: rows.map(sessionView), total, limit, offset }
}

export async function listForTenant(deps: Deps, tenant: SignedTenant, q: ListQuery & { externalId?: string }) {
  const limit = q.limit ?? 20
  const offset = q.offset ?? 0
  const { rows, total } = await repo.listSessions(deps.database.db, tenant.id, { externalId: q.externalId }, limit, offset)
  return { sessions: rows.map(sessionView), total, limit, offset }
}

/** The tenant of a provider event's address, with its settings; null when unknown. */
export async function tenantById(deps: Deps, tenantId: string) {
  const row = isUuid(tenantId) ? await findTenant(deps.database.db, tenantId) : undefined
  return row ? { id: row.id, settings: settingsOf({ deps }, row) } : null
}
