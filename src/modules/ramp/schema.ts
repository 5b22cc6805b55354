/**
 * Slipway's own records of the bank ramp, per tenant and environment: the user's partner
 * customer (KYC), virtual IBANs, deposits and transactions. Each record keeps the partner's
 * `EventVersion` it was last changed by, so repeated and older partner events are dropped.
 * Amounts are exact decimal text as the partner sent them.
 */
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { tenants, users } from '../../db/schema'

export type RampEnv = 'sandbox' | 'production'
const env = () => text('environment', { enum: ['sandbox', 'production'] }).notNull()

export interface RegionView { region: string; status: string; model: string | null; updatedAt: string | null }
export interface AgreementView { name: string; version: number; accepted: boolean; acceptedAt: string | null }
export interface RequestForInformation { reason: string; fields: string[]; requestedAt: string | null }

export const rampCustomers = sqliteTable('ramp_customers', {
  /** also the partner's CustomerID: Slipway chooses it, so the user id never leaves */
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  environment: env(),
  userId: text('user_id').notNull().references(() => users.id),
  customerType: text('customer_type'),
  /** the partner's Verification.Status (`Approved`, `Pending`, `Declined`); null until known */
  verificationStatus: text('verification_status'),
  /** the partner knows the customer (the hosted onboarding was started) */
  known: integer('known', { mode: 'boolean' }).notNull().default(false),
  actionsRequired: text('actions_required', { mode: 'json' }).notNull().$type<string[]>(),
  regions: text('regions', { mode: 'json' }).notNull().$type<RegionView[]>(),
  agreements: text('agreements', { mode: 'json' }).notNull().$type<AgreementView[]>(),
  sessionUrl: text('session_url'),
  sessionExpiresAt: integer('session_expires_at'),
  eventVersion: integer('event_version').notNull().default(0),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [uniqueIndex('ramp_customers_user_uq').on(t.tenantId, t.environment, t.userId)])

export const rampPaymentMethods = sqliteTable('ramp_payment_methods', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  environment: env(),
  userId: text('user_id').notNull().references(() => users.id),
  customerId: text('customer_id').notNull(),
  /** the partner's id; it can hold the account number, so it is never sent in events */
  rampPaymentMethodId: text('ramp_payment_method_id').notNull(),
  paymentMethodType: text('payment_method_type').notNull(),
  /** sealed (sealed.ts); rows from earlier versions hold it in clear until `slipway reseal` */
  iban: text('iban').notNull(),
  bic: text('bic'),
  bankName: text('bank_name'),
  accountHolderName: text('account_holder_name'),
  reference: text('reference'),
  fiatCurrency: text('fiat_currency').notNull(),
  cryptoCurrency: text('crypto_currency').notNull(),
  /** Slipway's family chain id */
  chain: text('chain').notNull(),
  walletId: text('wallet_id').notNull(),
  destinationAddress: text('destination_address').notNull(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [
  uniqueIndex('ramp_payment_methods_ramp_uq').on(t.tenantId, t.environment, t.rampPaymentMethodId),
  index('ramp_payment_methods_user_idx').on(t.tenantId, t.environment, t.userId),
])

export const rampDeposits = sqliteTable('ramp_deposits', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  environment: env(),
  userId: text('user_id').notNull().references(() => users.id),
  paymentMethodId: text('payment_method_id'),
  rampDepositId: text('ramp_deposit_id').notNull(),
  status: text('status').notNull(),
  rampStatus: text('ramp_status'),
  rampSubStatus: text('ramp_sub_status'),
  requestForInformation: text('request_for_information', { mode: 'json' }).$type<RequestForInformation | null>(),
  refunds: text('refunds', { mode: 'json' }).notNull().$type<Array<Record<string, unknown>>>(),
  paymentMethodType: text('payment_method_type'),
  paymentSystemId: text('payment_system_id'),
  fiatAmount: text('fiat_amount').notNull(),
  fiatCurrency: text('fiat_currency').notNull(),
  depositDate: integer('deposit_date'),
  eventVersion: integer('event_version').notNull().default(0),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [
  uniqueIndex('ramp_deposits_ramp_uq').on(t.tenantId, t.environment, t.rampDepositId),
  index('ramp_deposits_user_idx').on(t.tenantId, t.environment, t.userId, t.createdAt),
])

export const rampTransactions = sqliteTable('ramp_transactions', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  environment: env(),
  userId: text('user_id').notNull().references(() => users.id),
  rampTransactionId: text('ramp_transaction_id').notNull(),
  /** `payin_conversion` (a deposit converted), `payin_delivery` (sent on chain), `payout`, `card_topup` */
  transactionType: text('transaction_type').notNull(),
  direction: text('direction').notNull(),
  status: text('status').notNull(),
  rampStatus: text('ramp_status'),
  rampSubStatus: text('ramp_sub_status'),
  cryptoAmount: text('crypto_amount'),
  cryptoCurrency: text('crypto_currency'),
  fiatAmount: text('fiat_amount'),
  fiatCurrency: text('fiat_currency'),
  network: text('network'),
  destinationAddress: text('destination_address'),
  transactionHash: text('transaction_hash'),
  depositId: text('deposit_id'),
  rampDepositId: text('ramp_deposit_id'),
  requestForInformation: text('request_for_information', { mode: 'json' }).$type<RequestForInformation | null>(),
  refunds: text('refunds', { mode: 'json' }).notNull().$type<Array<Record<string, unknown>>>(),
  /** Slipway's ids of the partner's rule and rule execution (rampOrchestrationIds), never the partner's */
  ruleId: text('rule_id'),
  ruleExecutionId: text('rule_execution_id'),
  reversesTransactionId: text('reverses_transaction_id'),
  adjustment: text('adjustment', { mode: 'json' }).$type<Record<string, unknown> | null>(),
  breakdown: text('breakdown', { mode: 'json' }).notNull().$type<Array<{ type: string; amount: string }>>(),
  networkFee: text('network_fee'),
  fiatFeeAmount: text('fiat_fee_amount'),
  fiatRate: text('fiat_rate'),
  paymentSystemId: text('payment_system_id'),
  eventVersion: integer('event_version').notNull().default(0),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [
  uniqueIndex('ramp_transactions_ramp_uq').on(t.tenantId, t.environment, t.rampTransactionId),
  index('ramp_transactions_user_idx').on(t.tenantId, t.environment, t.userId, t.createdAt),
  index('ramp_transactions_execution_idx').on(t.tenantId, t.environment, t.ruleExecutionId),
])

/**
 * Slipway's own ids for the partner's orchestration rules and rule executions
 * (`Orchestration.RuleID`, `RuleExecutionID`), one per partner id, tenant and environment.
 * Events name only these (rule 3: every id but `rampDepositId` and `rampTransactionId` is
 * the service's); the partner's ids stay here, never sent. A partner may build a transfer's
 * reference from its rule id (the sandbox simulator does), which must never leave (rule 8).
 */
export const rampOrchestrationIds = sqliteTable('ramp_orchestration_ids', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  environment: env(),
  kind: text('kind', { enum: ['rule', 'rule_execution'] }).notNull(),
  rampId: text('ramp_id').notNull(),
  createdAt: integer('created_at').notNull(),
}, (t) => [uniqueIndex('ramp_orchestration_ids_ramp_uq').on(t.tenantId, t.environment, t.kind, t.rampId)])

/**
 * A payout quote: the partner's prepared sell (`FormSessionID`) for one of the user's wallets.
 * `cryptoAuthorizedAmount` is the most the payout may take, in the stablecoin's smallest unit
 * (6 decimals). The partner's payment method id holds the account number: sealed (sealed.ts),
 * never sent in events.
 */
export const rampPayoutQuotes = sqliteTable('ramp_payout_quotes', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  environment: env(),
  userId: text('user_id').notNull().references(() => users.id),
  customerId: text('customer_id').notNull(),
  channelId: text('channel_id').notNull(),
  walletId: text('wallet_id').notNull(),
  /** Slipway's family chain id of the wallet */
  chain: text('chain').notNull(),
  cryptoCurrency: text('crypto_currency').notNull(),
  fiatAmount: text('fiat_amount').notNull(),
  fiatCurrency: text('fiat_currency').notNull(),
  rampPaymentMethodId: text('ramp_payment_method_id'),
  formSessionId: text('form_session_id').notNull(),
  totalFee: text('total_fee').notNull(),
  cryptoAmountEstimate: text('crypto_amount_estimate').notNull(),
  cryptoAuthorizedAmount: text('crypto_authorized_amount').notNull(),
  exchangeRate: text('exchange_rate'),
  depositAddress: text('deposit_address').notNull(),
  expiresAt: integer('expires_at').notNull(),
  createdAt: integer('created_at').notNull(),
}, (t) => [index('ramp_payout_quotes_user_idx').on(t.tenantId, t.environment, t.userId)])

/**
 * A payout to a bank account, paid from a custodial wallet: the crypto leg is a transaction of
 * the transactions module (`chainTransactionId`), the fiat leg the partner's sell
 * (`rampTransactionId`, found again in its events through `ExternalID` = this id).
 * Status: `pending` (sent, the partner not yet reporting), `processing`, `completed`, `failed`.
 */
export const rampPayouts = sqliteTable('ramp_payouts', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  environment: env(),
  userId: text('user_id').notNull().references(() => users.id),
  quoteId: text('quote_id').notNull(),
  walletId: text('wallet_id').notNull(),
  chain: text('chain').notNull(),
  cryptoCurrency: text('crypto_currency').notNull(),
  cryptoAuthorizedAmount: text('crypto_authorized_amount').notNull(),
  fiatAmount: text('fiat_amount').notNull(),
  fiatCurrency: text('fiat_currency').notNull(),
  exchangeRate: text('exchange_rate'),
  totalFee: text('total_fee').notNull(),
  status: text('status').notNull(),
  rampTransactionId: text('ramp_transaction_id'),
  chainTransactionId: text('chain_transaction_id'),
  txHash: text('tx_hash'),
  failureReason: text('failure_reason'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [
  uniqueIndex('ramp_payouts_quote_uq').on(t.tenantId, t.quoteId),
  index('ramp_payouts_user_idx').on(t.tenantId, t.environment, t.userId, t.createdAt),
])

/** A message for the user to sign with an external address; single use, short lived. */
export const rampAddressChallenges = sqliteTable('ramp_address_challenges', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  environment: env(),
  userId: text('user_id').notNull().references(() => users.id),
  /** Slipway's family chain id */
  chain: text('chain').notNull(),
  address: text('address').notNull(),
  message: text('message').notNull(),
  expiresAt: integer('expires_at').notNull(),
  usedAt: integer('used_at'),
  createdAt: integer('created_at').notNull(),
}, (t) => [index('ramp_address_challenges_user_idx').on(t.tenantId, t.environment, t.userId)])

/** An external address the user proved to control, registered with the partner (`rampAddressId`). */
export const rampProvenAddresses = sqliteTable('ramp_proven_addresses', {
  id: text('id').primaryKey(),
  tenantId: text('tenant_id').notNull().references(() => tenants.id),
  environment: env(),
  userId: text('user_id').notNull().references(() => users.id),
  chain: text('chain').notNull(),
  address: text('address').notNull(),
  rampAddressId: text('ramp_address_id').notNull(),
  provenAt: integer('proven_at').notNull(),
}, (t) => [uniqueIndex('ramp_proven_addresses_uq').on(t.tenantId, t.environment, t.userId, t.chain, t.address)])
