/** Request and answer schemas of the bank ramp payout routes: countries, channels, beneficiaries, quotes and payouts. */
import { t } from 'elysia'
import { integer } from '../../http/integer'
import { Limit, PageNumber } from '../../http/schemas'
import { DecimalText, Environment, Fiat2Text, IsTestnet, Nullable, UnitsText } from './model-formats'

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
  processingSeconds: integer(),
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
}, { examples: [{
  channelId: '0b5e1c9a-7d3f-4e21-9c4a-000000000003',
  walletId: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
  fiatAmount: '100.00',
  form: { AccountHolderName: 'Ada Lovelace', IBAN: 'DE89370400440532013000' },
  isTestnet: true,
}] })
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
}, { examples: [{
  channelId: '0b5e1c9a-7d3f-4e21-9c4a-000000000003',
  walletId: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
  cryptoAmount: '25000000',
  form: { AccountHolderName: 'Ada Lovelace', IBAN: 'DE89370400440532013000' },
  isTestnet: true,
}] })
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

export const PayoutPage = t.Object({ payouts: t.Array(PayoutView), total: integer(), page: integer(), limit: integer(), totalPages: integer() }, { title: 'PayoutPage' })
