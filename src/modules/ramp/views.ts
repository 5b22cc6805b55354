/**
 * How the bank ramp records are shown: the read endpoints and the event data (spec, Event
 * types, rules 1-8). Amounts, fees and rates are decimal text without trailing zeros, in the events
 * and in the read endpoints alike: the text stored (the partner's, through `decimalText`), never a
 * float (docs/bank-ramp.md, Amounts).
 * Never shown: names, documents, account numbers, references, the partner's payment method ids.
 */
import { iso } from '../../lib/clock'
import type { CustomerRow, DepositRow, PayoutRow, TransactionRow } from './repo'
import type { RampEnv } from './schema'
import { decimalText, plainDecimal } from './amounts'

export { decimalText }

/** Rule 1: the sub-statuses the bank ramp documents; anything else is sent as null. */
const SUB_STATUSES = new Set(['AmlScreening', 'UnderReview', 'Submitted', 'Confirming'])
export const subStatus = (v: unknown): string | null => (typeof v === 'string' && SUB_STATUSES.has(v) ? v : null)

const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms))

export type KycStatus = 'not_started' | 'pending' | 'action_required' | 'approved' | 'rejected'

export function kycStatusOf(c: CustomerRow | undefined): KycStatus {
  if (!c || !c.known) return 'not_started'
  if (c.verificationStatus === 'Approved') return 'approved'
  if (c.verificationStatus === 'Declined') return 'rejected'
  return c.actionsRequired.length ? 'action_required' : 'pending'
}

/** The onboarding status endpoint's answer; the event data is the same without `environment`. */
export function onboardingView(env: RampEnv, c: CustomerRow | undefined) {
  const kyc = kycStatusOf(c)
  const onboardingStatus = !c ? 'not_started' as const : !c.known ? 'session_created' as const : kyc === 'approved' || kyc === 'rejected' ? 'completed' as const : 'in_review' as const
  const nextStep = !c ? 'create_session' as const
    : !c.known ? 'complete_onboarding' as const
    : kyc === 'approved' ? 'initiate_payin' as const
    : kyc === 'rejected' ? 'contact_support' as const
    : kyc === 'action_required' ? 'provide_information' as const
    : 'wait_for_review' as const
  return {
    environment: env,
    kycStatus: kyc,
    onboardingStatus,
    verificationStatus: c?.verificationStatus ?? null,
    customerType: c?.customerType ?? null,
    actionsRequired: c?.actionsRequired ?? [],
    regions: c?.regions ?? [],
    agreements: c?.agreements ?? [],
    nextStep,
    updatedAt: c ? iso(c.updatedAt) : null,
  }
}

export function kycEventData(env: RampEnv, c: CustomerRow) {
  const { environment: _e, ...rest } = onboardingView(env, c)
  return { userId: c.userId, ...rest }
}

export function depositEventData(d: DepositRow) {
  return {
    depositId: d.id,
    rampDepositId: d.rampDepositId,
    userId: d.userId,
    paymentMethodId: d.paymentMethodId,
    status: d.status,
    rampStatus: d.rampStatus,
    rampSubStatus: d.rampSubStatus,
    requestForInformation: d.requestForInformation ?? null,
    refunds: d.refunds,
    paymentMethodType: d.paymentMethodType,
    paymentSystemId: d.paymentSystemId,
    fiatAmount: d.fiatAmount,
    fiatCurrency: d.fiatCurrency,
    depositDate: isoOrNull(d.depositDate),
    updatedAt: iso(d.updatedAt),
  }
}

export function depositView(d: DepositRow) {
  const { depositId, userId: _u, updatedAt, ...rest } = depositEventData(d)
  return { id: depositId, ...rest, refunds: d.refunds as Array<{ amount: string; status: string; requestedAt: string | null }>, createdAt: iso(d.createdAt), updatedAt }
}

export function transactionEventData(x: TransactionRow) {
  return {
    transactionId: x.id,
    rampTransactionId: x.rampTransactionId,
    userId: x.userId,
    transactionType: x.transactionType,
    status: x.status,
    rampStatus: x.rampStatus,
    rampSubStatus: x.rampSubStatus,
    cryptoAmount: x.cryptoAmount,
    cryptoCurrency: x.cryptoCurrency,
    fiatAmount: x.fiatAmount,
    fiatCurrency: x.fiatCurrency,
    network: x.network,
    destinationAddress: x.destinationAddress,
    transactionHash: x.transactionHash,
    depositId: x.depositId,
    direction: x.direction,
    rampDepositId: x.rampDepositId,
    requestForInformation: x.requestForInformation ?? null,
    refunds: x.refunds,
    ruleId: x.ruleId,
    ruleExecutionId: x.ruleExecutionId,
    reversesTransactionId: x.reversesTransactionId,
    adjustment: x.adjustment ?? null,
    breakdown: x.breakdown,
    networkFee: x.networkFee,
    fiatFeeAmount: x.fiatFeeAmount,
    fiatRate: x.fiatRate,
    paymentSystemId: x.paymentSystemId,
    updatedAt: iso(x.updatedAt),
  }
}

export function transactionView(x: TransactionRow) {
  return {
    id: x.id,
    rampTransactionId: x.rampTransactionId,
    transactionType: x.transactionType,
    direction: x.direction,
    status: x.status,
    rampStatus: x.rampStatus,
    rampSubStatus: x.rampSubStatus,
    cryptoAmount: x.cryptoAmount,
    cryptoCurrency: x.cryptoCurrency,
    fiatAmount: x.fiatAmount,
    fiatCurrency: x.fiatCurrency,
    exchangeRate: x.fiatRate,
    fiatFeeAmount: x.fiatFeeAmount,
    fiatRate: x.fiatRate,
    networkFee: x.networkFee,
    network: x.network,
    destinationAddress: x.destinationAddress,
    transactionHash: x.transactionHash,
    depositId: x.depositId,
    rampDepositId: x.rampDepositId,
    requestForInformation: x.requestForInformation ?? null,
    refunds: x.refunds as Array<{ amount: string; currency: string | null; status: string; requestedAt: string | null }>,
    breakdown: x.breakdown,
    createdAt: iso(x.createdAt),
    updatedAt: iso(x.updatedAt),
  }
}

/** `ramp.payout.updated` (rule 4): `cryptoAuthorizedAmount` in the smallest unit, `fiatAmount` a decimal. */
export function payoutEventData(p: PayoutRow) {
  return {
    payoutId: p.id,
    userId: p.userId,
    status: p.status,
    cryptoCurrency: p.cryptoCurrency,
    cryptoAuthorizedAmount: p.cryptoAuthorizedAmount,
    fiatAmount: plainDecimal(p.fiatAmount),
    fiatCurrency: p.fiatCurrency,
    rampTransactionId: p.rampTransactionId,
    updatedAt: iso(p.updatedAt),
  }
}
