/**
 * What the agent payments tables store besides their columns (schema.ts): the statuses and
 * other closed sets of values, and the shapes of the JSON columns.
 */

export const AGENT_STATUSES = ['active', 'paused', 'archived'] as const
export type AgentStatus = (typeof AGENT_STATUSES)[number]
export const MERCHANT_STATUSES = ['active', 'disabled'] as const
export type MerchantStatus = (typeof MERCHANT_STATUSES)[number]
export const ENVIRONMENTS = ['production', 'sandbox'] as const
export type ApEnvironment = (typeof ENVIRONMENTS)[number]

export const LIMIT_INTERVALS = ['per_transaction', 'daily', 'weekly', 'monthly', 'all_time'] as const
export type LimitInterval = (typeof LIMIT_INTERVALS)[number]
export const RAILS = ['onchain', 'x402'] as const
export type Rail = (typeof RAILS)[number]
export const APPROVAL_MODES = ['auto', 'threshold', 'always'] as const
export type ApprovalMode = (typeof APPROVAL_MODES)[number]
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const
export type Weekday = (typeof WEEKDAYS)[number]

export interface PolicyLimit { interval: LimitInterval; amount: string }
export interface ActiveHours { timeZone: string; days: Weekday[]; start: string; end: string }

// mandates

export const MANDATE_TYPES = ['intent', 'cart'] as const
export type MandateType = (typeof MANDATE_TYPES)[number]
/** `pending_authorization → active | rejected | expired`; `active → consumed | exhausted | revoked | expired` */
export const MANDATE_STATUSES = ['pending_authorization', 'active', 'rejected', 'expired', 'consumed', 'exhausted', 'revoked'] as const
export type MandateStatus = (typeof MANDATE_STATUSES)[number]
export const RECURRENCE_FREQUENCIES = ['daily', 'weekly', 'monthly'] as const
export type RecurrenceFrequency = (typeof RECURRENCE_FREQUENCIES)[number]

export interface MandateConstraints {
  /** decimal strings in `currency` */
  maxAmount: string
  currency: string
  budget?: string
  merchantIds?: string[]
  categories?: string[]
  recurrence?: { frequency: RecurrenceFrequency; maxOccurrences: number }
  /** ISO date-times */
  notBefore?: string
  notAfter?: string
}
export interface CartItem { name: string; quantity: number; unitPrice: string }
export interface MandateCart { items: CartItem[]; total: string; currency: string; merchantId: string }

// executions and approvals

export const EXECUTION_STATUSES = [
  'pending', 'rejected', 'requires_approval', 'requires_confirmation', 'processing', 'succeeded',
  'failed', 'canceled', 'expired', 'refunded', 'partially_refunded',
] as const
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number]
/** the statuses past their judgement whose amount is reserved or paid (what a payment under a mandate has used up) */
export const RESERVED_STATUSES: ExecutionStatus[] = ['processing', 'succeeded', 'refunded', 'partially_refunded']
/**
 * the statuses whose amount counts against the policy's windows and a mandate's budget: reserved
 * or paid, and the ones waiting for an approval or a confirmation, which hold their amount from
 * the moment they are judged (rejected, canceled, expired and failed release it)
 */
export const COUNTED_STATUSES: ExecutionStatus[] = ['requires_approval', 'requires_confirmation', ...RESERVED_STATUSES]
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired', 'canceled'] as const
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number]

export interface ExecutionReason { code: string; message: string; interval?: string }

/**
 * What the x402 rail saw and did (x402.ts): the requirement it chose and the ones it refused,
 * the EIP-3009 authorization it signed (stored before it was sent), the facilitator's
 * settlement and the resource's answer. Amounts are integer strings in the token's units.
 */
export interface X402Record {
  /** the x402 version the resource's 402 was read (and paid) in: 2, or 1 where it offered only that */
  version?: 1 | 2
  /** as v2 shapes it whatever the version: network as CAIP-2, `amount` (v1's `maxAmountRequired`) */
  requirement?: { scheme: string; network: string; asset: string; payTo: string; amount: string; maxTimeoutSeconds: number }
  refused?: { scheme: string; network: string; asset: string; payTo: string; amount: string; reasons: string[] }[]
  authorization?: { from: string; to: string; value: string; validAfter: string; validBefore: string; nonce: string }
  holdId?: string
  /** the chain's head (less a margin) when it was signed: where the transaction that used it is searched from */
  fromBlock?: string
  settlement?: { success: boolean; transaction: string | null; network: string | null; payer: string | null; errorReason: string | null; source: 'resource' | 'chain' }
  resource?: { status: number; contentType: string | null; size: number; truncated: boolean; body: string | null; bodyBase64: string | null }
}
