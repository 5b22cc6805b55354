/** Request and answer schemas of the bank ramp routes: onboarding (KYC), pay-ins and the environment's settings. */
import { t } from 'elysia'
import { integer } from '../../http/integer'
import { DecimalText, IsTestnet, Nullable } from './model-formats'

export const EnvQuery = t.Object({
  isTestnet: t.Optional(t.BooleanString({ description: '`true`: the bank ramp sandbox; omitted: production' })),
})
export type EnvQuery = typeof EnvQuery.static

export const PageQuery = t.Object({
  isTestnet: t.Optional(t.BooleanString({ description: '`true`: the bank ramp sandbox; omitted: production' })),
  limit: t.Optional(integer({ minimum: 1, maximum: 100, default: 20 })),
  offset: t.Optional(integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
})
export type PageQuery = typeof PageQuery.static

export const EnvBody = t.Object({ isTestnet: IsTestnet }, { examples: [{ isTestnet: true }] })
export type EnvBody = typeof EnvBody.static

export const OnboardSessionBody = t.Object({
  isTestnet: IsTestnet,
  returnUrl: t.Optional(t.String({ maxLength: 2048, pattern: '^https?://', description: 'where the hosted page sends the user back; default PUBLIC_BASE_URL' })),
  customerType: t.Optional(t.Union([t.Literal('Individual'), t.Literal('Business')], { default: 'Individual' })),
}, { examples: [{ isTestnet: true, returnUrl: 'https://app.example.com/kyc-done' }] })
export type OnboardSessionBody = typeof OnboardSessionBody.static

export const PayinInitiateBody = t.Object({
  walletId: t.String({ format: 'uuid', description: 'one of the caller\'s wallets; the stablecoin is sent to its address on its chain' }),
  cryptoCurrency: t.Optional(t.String({ minLength: 1, maxLength: 16, default: 'USDC' })),
  fiatCurrency: t.Optional(t.String({ minLength: 3, maxLength: 3, default: 'EUR' })),
  network: t.Optional(t.String({ minLength: 1, maxLength: 64, description: 'family chain id; must be the wallet\'s chain when given' })),
  isTestnet: IsTestnet,
}, { examples: [{ walletId: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f', cryptoCurrency: 'USDC', fiatCurrency: 'EUR', isTestnet: true }] })
export type PayinInitiateBody = typeof PayinInitiateBody.static

export const SimulateDepositBody = t.Object({
  amount: t.Number({ minimum: 0, maximum: 15000, description: 'EUR as a JSON number, more than 0, at most 2 decimals, at most 15000' }),
  paymentMethodId: t.Optional(t.String({ format: 'uuid', description: 'a virtual IBAN of the caller (`id` from payment-methods); default the newest sandbox one' })),
}, { examples: [{ amount: 250.5 }] })
export type SimulateDepositBody = typeof SimulateDepositBody.static

export const CheckoutBody = t.Object({
  fiatAmount: t.Optional(t.String({ pattern: '^\\d{1,12}(\\.\\d{1,2})?$' })),
}, { additionalProperties: true, examples: [{ fiatAmount: '50.00' }] })

const Region = t.Object({ region: t.String(), status: t.String(), model: Nullable(t.String()), updatedAt: Nullable(t.String()) })
const Agreement = t.Object({ name: t.String(), version: integer(), accepted: t.Boolean(), acceptedAt: Nullable(t.String()) })

export const KycStatus = t.Union([t.Literal('not_started'), t.Literal('pending'), t.Literal('action_required'), t.Literal('approved'), t.Literal('rejected')])
export const OnboardingStatus = t.Union([t.Literal('not_started'), t.Literal('session_created'), t.Literal('in_review'), t.Literal('completed')])

export const OnboardingStatusView = t.Object({
  environment: t.Union([t.Literal('sandbox'), t.Literal('production')]),
  kycStatus: KycStatus,
  onboardingStatus: OnboardingStatus,
  verificationStatus: Nullable(t.String({ description: 'as kept from the bank ramp, e.g. `Approved`' })),
  customerType: Nullable(t.String()),
  actionsRequired: t.Array(t.String()),
  regions: t.Array(Region),
  agreements: t.Array(Agreement),
  nextStep: t.Union([
    t.Literal('create_session'),
    t.Literal('complete_onboarding'),
    t.Literal('provide_information'),
    t.Literal('wait_for_review'),
    t.Literal('initiate_payin'),
    t.Literal('contact_support'),
  ]),
  updatedAt: Nullable(t.String({ format: 'date-time' })),
}, { title: 'RampOnboardingStatus' })

export const OnboardSessionView = t.Object({
  url: t.String({ description: 'the hosted onboarding page to open' }),
  expiresAt: t.String({ format: 'date-time' }),
  reused: t.Boolean({ description: '`true` when the user\'s unexpired session was returned' }),
  environment: t.Union([t.Literal('sandbox'), t.Literal('production')]),
}, { title: 'RampOnboardSession' })

export const SyncStatusView = t.Object({
  synced: t.Boolean({ description: '`false` when the bank ramp does not know the customer yet (the hosted onboarding was not started)' }),
  status: OnboardingStatusView,
}, { title: 'RampSyncStatus' })

export const PaymentMethodView = t.Object({
  id: t.String(),
  environment: t.String(),
  paymentMethodType: t.String({ examples: ['BankSepa'] }),
  iban: t.String(),
  bic: Nullable(t.String()),
  bankName: Nullable(t.String()),
  accountHolderName: Nullable(t.String()),
  reference: Nullable(t.String()),
  fiatCurrency: t.String(),
  cryptoCurrency: t.String(),
  network: t.String({ description: 'family chain id' }),
  walletId: t.String(),
  destinationAddress: t.String(),
  createdAt: t.String({ format: 'date-time' }),
}, { title: 'RampVirtualIban' })

const RequestForInformation = Nullable(t.Object({ reason: t.String(), fields: t.Array(t.String()), requestedAt: Nullable(t.String()) }))
const DepositRefund = t.Object({ amount: DecimalText('refunded'), status: t.String(), requestedAt: Nullable(t.String()) })
const TxRefund = t.Object({ amount: DecimalText('refunded, in `currency`'), currency: Nullable(t.String()), status: t.String(), requestedAt: Nullable(t.String()) })

export const DepositView = t.Object({
  id: t.String(),
  rampDepositId: t.String(),
  paymentMethodId: Nullable(t.String()),
  status: t.String({ examples: ['pending', 'completed', 'failed'] }),
  rampStatus: Nullable(t.String()),
  rampSubStatus: Nullable(t.String()),
  requestForInformation: RequestForInformation,
  refunds: t.Array(DepositRefund),
  paymentMethodType: Nullable(t.String()),
  paymentSystemId: Nullable(t.String()),
  fiatAmount: DecimalText('the amount received, in `fiatCurrency`'),
  fiatCurrency: t.String(),
  depositDate: Nullable(t.String()),
  createdAt: t.String(),
  updatedAt: t.String(),
}, { title: 'RampDeposit' })

export const TransactionView = t.Object({
  id: t.String(),
  rampTransactionId: t.String(),
  transactionType: t.String({ examples: ['payin_conversion', 'payin_delivery'] }),
  direction: t.String(),
  status: t.String(),
  rampStatus: Nullable(t.String()),
  rampSubStatus: Nullable(t.String()),
  cryptoAmount: Nullable(DecimalText('in `cryptoCurrency` (not the smallest unit: `107.4492` USDC)')),
  cryptoCurrency: Nullable(t.String()),
  fiatAmount: Nullable(DecimalText('in `fiatCurrency`')),
  fiatCurrency: Nullable(t.String()),
  exchangeRate: Nullable(DecimalText('fiat per unit of crypto; the same value as `fiatRate`')),
  fiatFeeAmount: Nullable(DecimalText('the bank ramp\'s fee, in `fiatCurrency`')),
  fiatRate: Nullable(DecimalText('fiat per unit of crypto')),
  networkFee: Nullable(DecimalText('in `cryptoCurrency`')),
  network: Nullable(t.String()),
  destinationAddress: Nullable(t.String()),
  transactionHash: Nullable(t.String()),
  depositId: Nullable(t.String()),
  rampDepositId: Nullable(t.String()),
  requestForInformation: RequestForInformation,
  refunds: t.Array(TxRefund),
  breakdown: t.Array(t.Object({ type: t.String(), amount: DecimalText('of this part') })),
  createdAt: t.String(),
  updatedAt: t.String(),
}, { title: 'RampPayinTransaction' })

export const DepositPage = t.Object({ deposits: t.Array(DepositView), total: integer(), limit: integer(), offset: integer() })
export const TransactionPage = t.Object({ transactions: t.Array(TransactionView), total: integer(), limit: integer(), offset: integer() })

export const CurrenciesView = t.Object({
  environment: t.String(),
  fiat: t.Array(t.Object({ currency: t.String() })),
  crypto: t.Array(t.Object({ currency: t.String({ examples: ['USDC'] }), rampCurrency: t.String({ examples: ['USDC_TEST'] }), networks: t.Array(t.String()) })),
}, { title: 'RampCurrencies' })

export const SettingsView = t.Object({
  environment: t.String(),
  functions: t.Object({ kyc: t.Boolean(), payin: t.Boolean(), payout: t.Boolean() }),
  simulator: t.Boolean({ description: '`true` when the sandbox is served by the built-in simulator' }),
  limits: t.Object({ simulateDepositMax: DecimalText('the most one simulate-deposit `amount` may be, in EUR (that request takes a JSON number)') }),
}, { title: 'RampSettings' })

export const SimulatedDepositView = t.Object({
  depositId: t.String(),
  rampDepositId: t.String(),
  paymentMethodId: t.String(),
  fiatAmount: DecimalText('the amount sent, in `fiatCurrency`'),
  fiatCurrency: t.String(),
  status: t.String(),
}, { title: 'RampSimulatedDeposit' })
