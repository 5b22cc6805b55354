/**
 * Bank ramp, part 1: the tenant's switches, KYC with the partner's hosted onboarding, virtual
 * IBANs that convert EUR transfers to a stablecoin at a user's wallet, and the records the
 * partner's events keep up to date (events.ts).
 *
 * Access, in this order: a tenant user (403 otherwise); a tenant that uses the bank ramp in some
 * environment (403); connected in the chosen one (503 `RAMP_NOT_CONFIGURED`, nobody called); the
 * function switched on (403 `RAMP_FUNCTION_OFF`).
 */
import { AppError, BadRequestError, ForbiddenError, NotFoundError, RampApiError } from '../../http/errors'
import { iso } from '../../lib/clock'
import { isUuid, newId } from '../../lib/ids'
import { verifyPartnerWebhook } from '../../sandbox/bank-ramp/signature'
import type { BankRampClient } from '../../adapters/bank-ramp/port'
import type { Deps } from '../../deps'
import type { Ctx } from '../../context'
import { findTenant, settingsOf } from '../tenants/service'
import { bankRampAad, type StoredRampEnv, type StoredSettings } from '../tenants/settings'
import { findUserWallet } from '../wallets/repo'
import type * as M from './model'
import { applyPartnerEvent, customerPatch } from './events'
import { availablePairs, FIAT, offered, partnerCrypto, partnerNetwork } from './pairs'
import * as repo from './repo'
import type { RampEnv } from './schema'
import { ibanAad, openStored } from './sealed'
import { decimalText, depositView, onboardingView, transactionView } from './views'

export type RampFunction = 'kyc' | 'payin' | 'payout'
/** How long Slipway hands out the same hosted onboarding link before asking the partner for another. */
export const SESSION_TTL_MS = 60 * 60_000
export const SIMULATE_DEPOSIT_MAX = 15000

export const envOf = (isTestnet: boolean | undefined): RampEnv => (isTestnet ? 'sandbox' : 'production')

export const notConfigured = (env: RampEnv) =>
  new RampApiError(503, 'RAMP_NOT_CONFIGURED', `The bank ramp is not connected for this tenant in ${env}`, { environment: env })
export const customerNotFound = (env: RampEnv) =>
  new NotFoundError(`No bank ramp profile for this user in ${env}`, { details: { code: 'RAMP_CUSTOMER_NOT_FOUND', environment: env } })

export interface RampAccess {
  tenantId: string
  userId: string
  env: RampEnv
  settings: StoredSettings
  ramp: StoredRampEnv
}

/** 403 `RAMP_NOT_USED`: the tenant connected neither environment; says which setting turns the sandbox on. */
const notUsed = () => new ForbiddenError(
  'This tenant does not use the bank ramp: a platform admin connects its sandbox with PATCH /v1/admin/tenants/{id} { "bankRamp": { "sandbox": { "connected": true } } } (the built-in simulator, no partner address needed), or creates the tenant with `slipway tenant create --name <name> --sandbox`',
  { details: { code: 'RAMP_NOT_USED', setting: 'bankRamp.sandbox.connected' } },
)

async function tenantSettings(ctx: Ctx): Promise<{ tenantId: string; settings: StoredSettings }> {
  const tenantId = ctx.actor.tenantId
  if (!tenantId) throw new ForbiddenError('The bank ramp serves tenant users; this token has no tenant')
  const row = await findTenant(ctx.deps.database.db, tenantId)
  if (!row) throw new ForbiddenError('The bank ramp serves tenant users; this token has no tenant')
  const settings = settingsOf(ctx, row)
  if (!settings.bankRamp.sandbox.connected && !settings.bankRamp.production.connected) throw notUsed()
  return { tenantId, settings }
}

export async function access(ctx: Ctx, env: RampEnv, fn: RampFunction | null): Promise<RampAccess> {
  const { tenantId, settings } = await tenantSettings(ctx)
  const ramp = settings.bankRamp[env]
  if (!ramp.connected) throw notConfigured(env)
  if (fn && !ramp.functions[fn]) {
    throw new ForbiddenError(`The bank ramp function ${fn} is switched off for this tenant in ${env}`, { details: { code: 'RAMP_FUNCTION_OFF', function: fn, environment: env } })
  }
  return { tenantId, userId: ctx.actor.userId, env, settings, ramp }
}

/**
 * The partner client of a tenant in one environment: its own partner address and key, or,
 * for a sandbox with no address, the simulator this process serves.
 */
export function partnerClient(deps: Deps, tenantId: string, env: RampEnv, ramp: StoredRampEnv): BankRampClient {
  if (ramp.baseUrl) {
    if (!ramp.apiKeySealed) throw notConfigured(env)
    const apiKey = deps.sealer.open(ramp.apiKeySealed, bankRampAad(tenantId, env, 'apiKey'))
    return deps.bankRamp.connect({ baseUrl: ramp.baseUrl, apiKey })
  }
  const sim = deps.bankRampSimulator
  if (env === 'sandbox' && sim) {
    const fetchFn = ((input: string | URL | Request, init?: RequestInit) => sim.fetch(new Request(input, init))) as typeof fetch
    return deps.bankRamp.connect({ baseUrl: sim.apiBaseUrl, apiKey: sim.credentials(tenantId).apiKey, fetch: fetchFn })
  }
  throw notConfigured(env)
}

/** Keys the partner's webhooks of this tenant and environment may be signed with (none: not verifiable). */
export function partnerWebhookKeys(deps: Deps, tenantId: string, env: RampEnv, ramp: StoredRampEnv): string[] {
  if (ramp.baseUrl) return ramp.webhookKeySealed ? [deps.sealer.open(ramp.webhookKeySealed, bankRampAad(tenantId, env, 'webhookKey'))] : []
  if (env === 'sandbox' && deps.bankRampSimulator) return [deps.bankRampSimulator.credentials(tenantId).webhookKey]
  return []
}

// ---- KYC

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

// ---- pay-ins

export async function currencies(ctx: Ctx, input: M.EnvQuery) {
  const a = await access(ctx, envOf(input.isTestnet), 'payin')
  return { environment: a.env, fiat: FIAT.map((currency) => ({ currency })), crypto: offered(a.settings, a.env) }
}

export async function rampSettings(ctx: Ctx, input: M.EnvQuery) {
  const env = envOf(input.isTestnet)
  const { settings } = await tenantSettings(ctx)
  const ramp = settings.bankRamp[env]
  if (!ramp.connected) throw notConfigured(env)
  return {
    environment: env,
    functions: ramp.functions,
    simulator: env === 'sandbox' && !ramp.baseUrl && !!ctx.deps.bankRampSimulator,
    limits: { simulateDepositMax: String(SIMULATE_DEPOSIT_MAX) },
  }
}

function methodView(deps: Deps, m: repo.MethodRow) {
  return {
    id: m.id, environment: m.environment, paymentMethodType: m.paymentMethodType, iban: openStored(deps.sealer, m.iban, ibanAad(m.tenantId, m.id)), bic: m.bic, bankName: m.bankName,
    accountHolderName: m.accountHolderName, reference: m.reference, fiatCurrency: m.fiatCurrency, cryptoCurrency: m.cryptoCurrency,
    network: m.chain, walletId: m.walletId, destinationAddress: m.destinationAddress, createdAt: iso(m.createdAt),
  }
}

export async function initiatePayin(ctx: Ctx, input: M.PayinInitiateBody) {
  const { deps } = ctx
  const a = await access(ctx, envOf(input.isTestnet), 'payin')
  const wallet = await findUserWallet(deps.database.db, a.tenantId, a.userId, input.walletId)
  if (!wallet) throw new NotFoundError('Wallet not found')
  if (wallet.isTestnet !== (a.env === 'sandbox')) {
    throw new BadRequestError(`The wallet is on ${wallet.isTestnet ? 'a testnet' : 'mainnet'}; the bank ramp ${a.env} pays to ${a.env === 'sandbox' ? 'testnet' : 'mainnet'} wallets (isTestnet)`)
  }
  if (input.network !== undefined && input.network !== wallet.chain) throw new BadRequestError(`The wallet is on ${wallet.chain}, not ${input.network}`)
  const crypto = input.cryptoCurrency ?? 'USDC'
  const fiat = input.fiatCurrency ?? 'EUR'
  const available = availablePairs(a.settings, a.env)
  if (!available.some((p) => p.cryptoCurrency === crypto && p.fiatCurrency === fiat && p.network === wallet.chain)) {
    throw new AppError(400, 'BadRequestError', `${fiat} to ${crypto} on ${wallet.chain} is not offered in ${a.env}`, { details: { code: 'RAMP_PAIR_UNAVAILABLE', available } })
  }
  const customer = await repo.findCustomer(deps.database.db, a.tenantId, a.env, a.userId)
  if (!customer) throw customerNotFound(a.env)
  const res = await partnerClient(deps, a.tenantId, a.env, a.ramp).createBankDepositWorkflow({
    CustomerID: customer.id, FiatCurrency: fiat, CryptoCurrency: partnerCrypto(crypto, a.env)!, Network: partnerNetwork(wallet.chain, a.env)!,
    DestinationAddress: { Address: wallet.address },
  })
  if (typeof res.PaymentMethodID !== 'string' || typeof res.AccountNumber !== 'string') throw new RampApiError(503, 'RAMP_UNAVAILABLE', 'The bank ramp sent no virtual account')
  const now = deps.clock.now()
  const row = await deps.database.write(async (tx) => {
    // the IBAN is sealed for the row that keeps it: the one the partner's id already has, if any
    const id = (await repo.findMethodByRampId(tx, a.tenantId, a.env, res.PaymentMethodID))?.id ?? newId()
    return repo.upsertMethod(tx, a.tenantId, {
      id, environment: a.env, userId: a.userId, customerId: customer.id, rampPaymentMethodId: res.PaymentMethodID,
      paymentMethodType: res.PaymentMethodType ?? 'BankSepa', iban: deps.sealer.seal(res.AccountNumber.replace(/\s+/g, ''), ibanAad(a.tenantId, id)),
      bic: res.BankCode ?? null, bankName: res.BankName ?? null,
      accountHolderName: res.AccountHolderName ?? null, reference: res.Reference ?? null, fiatCurrency: fiat, cryptoCurrency: crypto, chain: wallet.chain,
      walletId: wallet.id, destinationAddress: wallet.address, createdAt: now, updatedAt: now,
    })
  })
  return methodView(deps, row)
}

export async function paymentMethods(ctx: Ctx, input: M.EnvQuery) {
  const a = await access(ctx, envOf(input.isTestnet), 'payin')
  return { paymentMethods: (await repo.listMethods(ctx.deps.database.db, a.tenantId, a.env, a.userId)).map((m) => methodView(ctx.deps, m)) }
}

export async function deposits(ctx: Ctx, input: M.PageQuery) {
  const a = await access(ctx, envOf(input.isTestnet), 'payin')
  const limit = input.limit ?? 20
  const offset = input.offset ?? 0
  const { rows, total } = await repo.listDeposits(ctx.deps.database.db, a.tenantId, a.env, a.userId, limit, offset)
  return { deposits: rows.map(depositView), total, limit, offset }
}

export async function payinTransactions(ctx: Ctx, input: M.PageQuery) {
  const a = await access(ctx, envOf(input.isTestnet), 'payin')
  const limit = input.limit ?? 20
  const offset = input.offset ?? 0
  const { rows, total } = await repo.listTransactions(ctx.deps.database.db, a.tenantId, a.env, a.userId, limit, offset)
  return { transactions: rows.map(transactionView), total, limit, offset }
}

/** Card top-up is switched off (spec): always 403, nothing called. */
export function checkout(): never {
  throw new ForbiddenError('Card top-up is switched off; use the bank transfer deposit route (POST /v1/ramp/bank/payin/initiate)', { details: { code: 'CARD_TOPUP_UNAVAILABLE' } })
}

/**
 * `amountText`: the amount as the body wrote it (src/lib/json-source.ts). The check is on that
 * text: a float within a rounding tolerance of a cent is not an amount with 2 decimals.
 */
export async function simulateDeposit(ctx: Ctx, input: M.SimulateDepositBody, amountText: string | undefined) {
  const { deps } = ctx
  const a = await access(ctx, 'sandbox', 'payin')
  // without the text (a caller in process), the number's shortest text stands for it
  const text = amountText ?? String(input.amount)
  if (!/^\d{1,5}(\.\d{1,2})?$/.test(text)) throw new BadRequestError('amount is a decimal with at most 2 decimals (no exponent)', { details: { field: 'amount' } })
  const fiatAmount = decimalText(text)!
  if (!/[1-9]/.test(fiatAmount)) throw new BadRequestError('amount must be more than 0', { details: { field: 'amount' } })
  const customer = await repo.findCustomer(deps.database.db, a.tenantId, a.env, a.userId)
  if (!customer) throw customerNotFound(a.env)
  const method = input.paymentMethodId
    ? await repo.findMethod(deps.database.db, a.tenantId, a.env, a.userId, input.paymentMethodId)
    : (await repo.listMethods(deps.database.db, a.tenantId, a.env, a.userId))[0]
  if (!method) throw new NotFoundError('Virtual IBAN not found: create one with POST /v1/ramp/bank/payin/initiate')
  const res = await partnerClient(deps, a.tenantId, a.env, a.ramp).simulateFiatDeposit({ PaymentMethodID: method.rampPaymentMethodId, FiatAmount: fiatAmount, FiatCurrency: method.fiatCurrency })
  if (typeof res.FiatDepositID !== 'string' || !res.FiatDepositID) throw new RampApiError(503, 'RAMP_UNAVAILABLE', 'The bank ramp sent no deposit id')
  const now = deps.clock.now()
  // the partner's first event may have recorded the deposit already (it is posted at once)
  const row = await deps.database.write(async (tx) => {
    await repo.insertDeposit(tx, a.tenantId, {
      id: newId(), environment: a.env, userId: a.userId, paymentMethodId: method.id, rampDepositId: res.FiatDepositID, status: 'pending', rampStatus: null,
      rampSubStatus: null, requestForInformation: null, refunds: [], paymentMethodType: method.paymentMethodType, paymentSystemId: null,
      fiatAmount: decimalText(fiatAmount)!, fiatCurrency: method.fiatCurrency, depositDate: null, eventVersion: 0, createdAt: now, updatedAt: now,
    })
    return (await repo.findDepositByRampId(tx, a.tenantId, a.env, res.FiatDepositID))!
  })
  return { depositId: row.id, rampDepositId: row.rampDepositId, paymentMethodId: method.id, fiatAmount: row.fiatAmount, fiatCurrency: row.fiatCurrency, status: row.status }
}

// ---- partner events

export interface PartnerDelivery {
  tenantId: string
  environment: RampEnv
  raw: Uint8Array
  signature: string | null
}

/**
 * A partner webhook for one tenant and environment: 401 when the signature does not verify
 * (checked over the raw bytes before anything is parsed; a tenant unknown or not connected there
 * answers the same), 400 for a body that is no partner event; otherwise
 * applied (or dropped as a repeat or stale) and answered 200 so the partner stops retrying.
 */
export async function receivePartnerWebhook(deps: Deps, input: PartnerDelivery) {
  const row = isUuid(input.tenantId) ? await findTenant(deps.database.db, input.tenantId) : undefined
  const ramp = row && row.status === 'active' ? settingsOf({ deps }, row).bankRamp[input.environment] : undefined
  // An unknown tenant, or one not connected here, has no key: its answer is a bad signature's,
  // so the endpoint does not tell which tenant ids exist.
  const keys = row && ramp?.connected ? partnerWebhookKeys(deps, row.id, input.environment, ramp) : []
  // the signature first, over the bytes as received; nothing is decoded or parsed before it passes
  const check = verifyPartnerWebhook(keys, input.signature, input.raw, Math.floor(deps.clock.now() / 1000))
  if (check !== 'ok' || !row) throw new AppError(401, 'UnauthorizedError', 'Invalid webhook signature', { details: { reason: check === 'ok' ? 'mismatch' : check } })
  let event: unknown
  try {
    event = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(input.raw))
  } catch {
    throw new BadRequestError('Request body is not valid JSON')
  }
  const e = event as Record<string, unknown>
  if (!e || typeof e !== 'object' || typeof e.EventType !== 'string' || !Number.isSafeInteger(e.EventVersion) || (e.EventVersion as number) < 1
    || typeof e.Data !== 'object' || e.Data === null || Array.isArray(e.Data)) {
    throw new BadRequestError('Not a partner event: EventType, EventVersion (a positive integer) and Data are required')
  }
  const outcome = await deps.database.write((tx) => applyPartnerEvent(deps, tx, row.id, input.environment, e as never, deps.clock.now()))
  return { received: true as const, outcome }
}
