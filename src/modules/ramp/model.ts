/** Request and answer schemas of the bank ramp routes (part 1: KYC, pay-ins, partner events). */
import { t } from 'elysia'
import { Limit, PageNumber } from '../../http/schemas'

const IsTestnet = t.Optional(t.Boolean({ description: '`true`: the bank ramp sandbox; `false` or omitted: production' }))
const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T) => t.Union([s, t.Null()])

/*
 * Money in answers is always a JSON string, never a number, so no amount passes through a float
 * (docs/bank-ramp.md, Amounts; tests/platform/money-format.test.ts checks the document). Three formats:
 * - decimal text without trailing zeros: deposits, pay-in transactions, rates, channel figures, quotes and payouts;
 * - fiat with exactly 2 decimals: only the `fiatAmount` of `POST payout/initiate`'s answer, as the platform API
 *   spec fixes it ("Payout initiate response `fiatAmount` ... has 2 decimals");
 * - integer text in the stablecoin's smallest unit (6 decimals): a payout's crypto amounts.
 */
/** Exact decimal text without trailing zeros, as `decimalText` (views.ts) writes it: `100.5`, `0.25`, `15000`. */
const DecimalText = (description: string) => t.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]*[1-9])?$', maxLength: 61, description: `${description}; exact decimal text without trailing zeros` })
/** Fiat with exactly 2 decimals (`100.00`): the payout initiate answer's `fiatAmount` only. */
const Fiat2Text = (description: string) => t.String({ pattern: '^(0|[1-9][0-9]*)\\.[0-9]{2}$', maxLength: 40, description: `${description}; decimal text with exactly 2 decimals` })
/** Integer text in the stablecoin's smallest unit (`25000000` = 25 with 6 decimals). */
const UnitsText = (description: string) => t.String({ pattern: '^(0|[1-9][0-9]*)$', maxLength: 78, description: `${description}; integer text in the smallest unit (6 decimals)` })

export const EnvQuery = t.Object({
  isTestnet: t.Optional(t.BooleanString({ description: '`true`: the bank ramp sandbox; omitted: production' })),
})
export type EnvQuery = typeof EnvQuery.static

export const PageQuery = t.Object({
  isTestnet: t.Optional(t.BooleanString({ description: '`true`: the bank ramp sandbox; omitted: production' })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20 })),
  offset: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
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
const Agreement = t.Object({ name: t.String(), version: t.Integer(), accepted: t.Boolean(), acceptedAt: Nullable(t.String()) })

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
  nextStep: t.Union([t.Literal('create_session'), t.Literal('complete_onboarding'), t.Literal('provide_information'), t.Literal('wait_for_review'), t.Literal('initiate_payin'), t.Literal('contact_support')]),
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

export const DepositPage = t.Object({ deposits: t.Array(DepositView), total: t.Integer(), limit: t.Integer(), offset: t.Integer() })
export const TransactionPage = t.Object({ transactions: t.Array(TransactionView), total: t.Integer(), limit: t.Integer(), offset: t.Integer() })

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

// ---- payouts (part 2)

const Environment = t.Union([t.Literal('sandbox'), t.Literal('production')])
const Decimal2 = (description: string) => t.String({ pattern: '^(0|[1-9]\\d{0,8})(\\.\\d{1,2})?$', maxLength: 12, description })
const PaymentMethodId = t.String({ minLength: 1, maxLength: 150, description: 'a saved payment method (`paymentMethodId` of a beneficiary); it contains the account number' })
/** A filled channel form: the fields its `formSchema` asks for. */
const Form = t.Record(t.String({ maxLength: 64 }), t.String({ maxLength: 256 }), { maxProperties: 50, description: 'the answers to the channel form\'s `formSchema`' })

export const ChannelIdParams = t.Object({ channelId: t.String({ format: 'uuid', description: 'a channel id from the channel search' }) })
export const QuoteIdParams = t.Object({ quoteId: t.String({ format: 'uuid' }) })
export const PayoutIdParams = t.Object({ payoutId: t.String({ format: 'uuid' }) })

export const ChannelFormBody = t.Object({
  paymentMethodId: t.Optional(PaymentMethodId),
  isTestnet: IsTestnet,
}, { examples: [{ paymentMethodId: 'Bank/Sepa/DE89370400440532013000', isTestnet: true }] })
export type ChannelFormBody = typeof ChannelFormBody.static

export const ChannelFormView = t.Object({
  environment: Environment,
  channelId: t.String({ format: 'uuid' }),
  formSchema: t.Union([t.Record(t.String(), t.Unknown()), t.Null()], { description: 'JSON Schema draft-07 of what to fill; `null` when nothing more is needed' }),
  formContentHash: Nullable(t.String({ description: 'SHA-256 (hex) of the schema as canonical JSON; changes when the form does' })),
}, { title: 'PayoutChannelForm' })

export const CountriesView = t.Object({
  environment: Environment,
  countries: t.Array(t.Object({ country: t.String({ description: 'ISO 3166-1 alpha-2' }), fiatCurrencies: t.Array(t.String()) })),
}, { title: 'PayoutCountries' })

export const ChannelSearchBody = t.Object({
  isTestnet: IsTestnet,
  country: t.Optional(t.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' })),
  fiatCurrency: t.Optional(t.String({ pattern: '^[A-Z]{3}$' })),
  cryptoCurrency: t.Optional(t.String({ minLength: 1, maxLength: 16, default: 'USDC' })),
  fiatAmount: t.Optional(Decimal2('with it, each channel answers its `totalFee` for that amount')),
  paymentMethodId: t.Optional(PaymentMethodId),
}, { examples: [{ isTestnet: true, country: 'DE', fiatCurrency: 'EUR', fiatAmount: '100.00' }] })
export type ChannelSearchBody = typeof ChannelSearchBody.static

export const ChannelView = t.Object({
  channelId: t.String(),
  paymentMethodCategory: t.String({ examples: ['Bank'] }),
  paymentMethodType: t.String({ examples: ['BankSepa'] }),
  fiatCurrency: t.String(),
  country: t.String(),
  limits: t.Object({ min: DecimalText('the least fiat amount of a payout'), max: Nullable(DecimalText('the most fiat amount of a payout; `null`: no limit')) }),
  rate: Nullable(DecimalText('fiat per unit of crypto, without fees (not a quote); `null` when the bank ramp sent none')),
  totalFee: Nullable(DecimalText('in `fiatCurrency`, for the searched `fiatAmount`')),
  processingSeconds: t.Integer(),
  processingTier: Nullable(t.String()),
}, { title: 'PayoutChannel' })

export const ChannelsView = t.Object({ environment: Environment, channels: t.Array(ChannelView) }, { title: 'PayoutChannels' })

export const BeneficiariesView = t.Object({
  environment: Environment,
  beneficiaries: t.Array(t.Object({
    paymentMethodId: t.String({ description: 'to pass to the channel form and quotes; contains the account number' }),
    paymentMethodCategory: t.String(),
    country: t.String(),
    accountNumberLast4: Nullable(t.String()),
    bankCode: Nullable(t.String()),
  })),
}, { title: 'PayoutBeneficiaries' })

export const QuoteBody = t.Object({
  channelId: t.String({ format: 'uuid' }),
  walletId: t.String({ format: 'uuid', description: 'the custodial wallet the payout is paid from' }),
  fiatAmount: Decimal2('what the bank account receives, at most 2 decimals'),
  fiatCurrency: t.Optional(t.String({ pattern: '^[A-Z]{3}$', default: 'EUR' })),
  cryptoCurrency: t.Optional(t.String({ minLength: 1, maxLength: 16, default: 'USDC' })),
  paymentMethodId: t.Optional(PaymentMethodId),
  form: t.Optional(Form),
  isTestnet: IsTestnet,
}, { examples: [{ channelId: '0b5e1c9a-7d3f-4e21-9c4a-000000000003', walletId: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f', fiatAmount: '100.00', form: { AccountHolderName: 'Ada Lovelace', IBAN: 'DE89370400440532013000' }, isTestnet: true }] })
export type QuoteBody = typeof QuoteBody.static

export const QuoteView = t.Object({
  id: t.String(),
  environment: Environment,
  channelId: t.String(),
  walletId: t.String(),
  network: t.String({ description: 'family chain id of the wallet' }),
  cryptoCurrency: t.String(),
  fiatAmount: DecimalText('what the bank account receives'),
  fiatCurrency: t.String(),
  totalFee: DecimalText('the bank ramp\'s fee, in `fiatCurrency`'),
  exchangeRate: Nullable(DecimalText('fiat per unit of crypto')),
  cryptoAmountEstimate: UnitsText('what the payout is expected to take'),
  cryptoAuthorizedAmount: UnitsText('what the payout sends from the wallet, at most'),
  depositAddress: t.String({ description: 'the bank ramp\'s address the crypto leg is sent to' }),
  status: t.Union([t.Literal('open'), t.Literal('used'), t.Literal('expired')]),
  payoutId: Nullable(t.String()),
  expiresAt: t.String({ format: 'date-time' }),
  createdAt: t.String({ format: 'date-time' }),
}, { title: 'PayoutQuote' })

export const QuoteStepsView = t.Object({
  quoteId: t.String(),
  steps: t.Array(t.Object({
    type: t.Union([t.Literal('transfer'), t.Literal('payout')]),
    status: t.Union([t.Literal('todo'), t.Literal('done')]),
    description: t.String(),
    walletId: Nullable(t.String()),
    chain: Nullable(t.String()),
    fromAddress: Nullable(t.String()),
    toAddress: Nullable(t.String()),
    tokenAddress: Nullable(t.String()),
    amount: Nullable(UnitsText('the `transfer` step\'s amount')),
  })),
}, { title: 'PayoutQuoteSteps' })

export const PayoutBody = t.Object({
  quoteId: t.String({ format: 'uuid' }),
  isTestnet: IsTestnet,
}, { examples: [{ quoteId: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f', isTestnet: true }] })
export type PayoutBody = typeof PayoutBody.static

export const InitiateBody = t.Object({
  channelId: t.String({ format: 'uuid' }),
  walletId: t.String({ format: 'uuid', description: 'the custodial wallet the payout is paid from' }),
  cryptoAmount: t.String({ pattern: '^[1-9]\\d{0,17}$', description: 'integer string, read with 6 decimals for every currency (`1500000` = 1.5)' }),
  fiatCurrency: t.Optional(t.String({ pattern: '^[A-Z]{3}$', default: 'EUR' })),
  cryptoCurrency: t.Optional(t.String({ minLength: 1, maxLength: 16, default: 'USDC' })),
  paymentMethodId: t.Optional(PaymentMethodId),
  form: t.Optional(Form),
  isTestnet: IsTestnet,
}, { examples: [{ channelId: '0b5e1c9a-7d3f-4e21-9c4a-000000000003', walletId: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f', cryptoAmount: '25000000', form: { AccountHolderName: 'Ada Lovelace', IBAN: 'DE89370400440532013000' }, isTestnet: true }] })
export type InitiateBody = typeof InitiateBody.static

export const PayoutStatus = t.Union([t.Literal('pending'), t.Literal('processing'), t.Literal('completed'), t.Literal('failed')])

export const PayoutView = t.Object({
  id: t.String(),
  environment: Environment,
  quoteId: t.String(),
  walletId: t.String(),
  network: t.String(),
  status: PayoutStatus,
  cryptoCurrency: t.String(),
  cryptoAuthorizedAmount: UnitsText('what the payout sends from the wallet, at most'),
  fiatAmount: DecimalText('what the bank account receives'),
  fiatCurrency: t.String(),
  exchangeRate: Nullable(DecimalText('fiat per unit of crypto')),
  totalFee: DecimalText('the bank ramp\'s fee, in `fiatCurrency`'),
  rampTransactionId: Nullable(t.String()),
  transactionId: Nullable(t.String({ description: 'the crypto leg: a transaction of `GET /v1/transactions/{id}`' })),
  txHash: Nullable(t.String()),
  failureReason: Nullable(t.String()),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
}, { title: 'Payout' })

export const InitiateView = t.Object({
  ...PayoutView.properties,
  fiatAmount: Fiat2Text('what the bank account receives (the spec fixes 2 decimals for this answer)'),
  cryptoAmount: UnitsText('as requested'),
}, { title: 'PayoutInitiated' })

export const PayoutListQuery = t.Object({
  isTestnet: t.Optional(t.BooleanString({ description: '`true`: the bank ramp sandbox; omitted: production' })),
  page: t.Optional(PageNumber),
  limit: t.Optional(Limit(100, 20)),
})
export type PayoutListQuery = typeof PayoutListQuery.static

export const PayoutPage = t.Object({ payouts: t.Array(PayoutView), total: t.Integer(), page: t.Integer(), limit: t.Integer(), totalPages: t.Integer() }, { title: 'PayoutPage' })

// ---- proven addresses (part 2)

export const AddressChallengeBody = t.Object({
  chain: t.String({ minLength: 1, maxLength: 32, description: 'family chain id of the address (`ethereum`, `solana`, …), one the bank ramp offers' }),
  address: t.String({ minLength: 1, maxLength: 128 }),
  isTestnet: IsTestnet,
}, { examples: [{ chain: 'ethereum', address: '0x71C7656EC7ab88b098defB751B7401B5f6d8976F', isTestnet: true }] })
export type AddressChallengeBody = typeof AddressChallengeBody.static

export const AddressChallengeView = t.Object({
  challengeId: t.String(),
  environment: Environment,
  chain: t.String(),
  address: t.String({ description: 'as Slipway writes it (EIP-55 checksum on EVM chains)' }),
  message: t.String({ description: 'sign exactly this text: EIP-191 `personal_sign` on EVM chains; ed25519 over its UTF-8 bytes on Solana' }),
  expiresAt: t.String({ format: 'date-time' }),
}, { title: 'RampAddressChallenge' })

export const AddressVerifyBody = t.Object({
  challengeId: t.String({ format: 'uuid' }),
  signature: t.String({ minLength: 1, maxLength: 200, description: 'EVM: 65-byte hex; Solana: 64-byte ed25519 signature, base58 or base64' }),
  isTestnet: IsTestnet,
}, { examples: [{ challengeId: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f', signature: '0x…', isTestnet: true }] })
export type AddressVerifyBody = typeof AddressVerifyBody.static

export const ProvenAddressView = t.Object({
  id: t.String(),
  environment: Environment,
  chain: t.String(),
  address: t.String(),
  provenAt: t.String({ format: 'date-time' }),
}, { title: 'RampProvenAddress' })

export const AddressIdParams = t.Object({ id: t.String({ format: 'uuid' }) })
