/**
 * Bank ramp pay-ins: virtual IBANs that convert EUR transfers to a stablecoin at a user's wallet,
 * the deposits and pay-in transactions the partner's events keep up to date (events.ts), and the
 * sandbox's simulated deposit.
 */
import { AppError, BadRequestError, ForbiddenError, NotFoundError, RampApiError, refusedField } from '../../lib/errors'
import { iso } from '../../lib/clock'
import { newId } from '../../lib/ids'
import type { Deps } from '../../deps'
import type { Ctx } from '../../context'
import { findUserWallet } from '../wallets'
import type * as M from './model'
import { access, customerNotFound, envOf, notConfigured, partnerClient, tenantSettings } from './access'
import { availablePairs, FIAT, offered, partnerCrypto, partnerNetwork } from './pairs'
import * as repo from './repo'
import { ibanAad, openStored } from './sealed'
import { decimalText, depositView, transactionView } from './views'

export const SIMULATE_DEPOSIT_MAX = 15000

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
  if (!/^\d{1,5}(\.\d{1,2})?$/.test(text)) throw refusedField('amount is a decimal with at most 2 decimals (no exponent)', '/amount')
  const fiatAmount = decimalText(text)!
  if (!/[1-9]/.test(fiatAmount)) throw refusedField('amount must be more than 0', '/amount')
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
