/** Request and response shapes of the card onramp routes (`/v1/ramp/card`). */
import { t, type Static } from 'elysia'
import { integer } from '../../http/integer'

/** A request's amount: decimal text as the caller writes it (`"50.00"`, `"50"`). */
const Decimal = (description: string) => t.String({ pattern: '^(0|[1-9][0-9]{0,17})(\\.[0-9]{1,18})?$', description: `${description}; decimal text`, examples: ['50.00'] })
/** An answer's amount: decimal text without trailing zeros (`"48.5"`), like every amount Slipway answers. */
const PlainDecimal = (description: string) => t.String({
  pattern: '^(0|[1-9][0-9]{0,17})(\\.[0-9]{0,17}[1-9])?$',
  description: `${description}; decimal text without trailing zeros`,
  examples: ['48.5'],
})
const NullableDecimal = (description: string) => t.Union([PlainDecimal(description), t.Null()])
const Currency = t.String({ pattern: '^[a-z]{2,10}$', description: 'lower case, as the provider names it (`usdc`, `eth`, `sol`; `eur`, `usd`)', examples: ['usdc'] })

const Status = t.Union([t.Literal('initialized'), t.Literal('failed'), t.Literal('rejected'), t.Literal('fulfillment_processing'), t.Literal('fulfillment_complete')])

/** The session as its read endpoint answers it, and as `ramp.card_session.updated` carries it (the spec's fields exactly). */
export const CardSession = t.Object({
  id: t.String({ format: 'uuid' }),
  environment: t.Union([t.Literal('sandbox'), t.Literal('production')]),
  status: Status,
  providerStatus: t.String({ description: 'the provider\'s own status (Stripe: initialized, rejected, requires_payment, fulfillment_processing, fulfillment_complete)' }),
  providerSessionId: t.String({ examples: ['cos_0MYvmj589O8KAxCGp14dTjiw'] }),
  pair: t.Object({ sourceCurrency: t.Union([t.String(), t.Null()]), destinationCurrency: t.String(), destinationNetwork: t.String() }),
  destination: t.Object({ walletId: t.Union([t.String(), t.Null()]), address: t.String(), chain: t.String() }),
  customer: t.Union([t.String(), t.Null()], { description: 'the end user\'s `externalId` when opened for the tenant\'s own wallet, else null' }),
  requested: t.Object({ sourceAmount: NullableDecimal('fiat asked for'), destinationAmount: NullableDecimal('crypto asked for') }),
  amounts: t.Union([t.Object({
    sourceAmount: NullableDecimal('fiat charged'), sourceCurrency: t.Union([t.String(), t.Null()]),
    destinationAmount: NullableDecimal('crypto delivered'), destinationCurrency: t.Union([t.String(), t.Null()]),
    networkFee: NullableDecimal('network fee, in the source currency'), transactionFee: NullableDecimal('the provider\'s fee, in the source currency'),
  }), t.Null()], { description: 'as the provider last reported them' }),
  transactionId: t.Union([t.String(), t.Null()], { description: 'the crypto transaction on the destination chain, once delivered' }),
  failureCode: t.Union([t.String(), t.Null()]),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
}, { title: 'CardOnrampSession' })

export const CreatedSession = t.Object({
  ...CardSession.properties,
  redirectUrl: t.String({ description: 'the provider\'s hosted onramp page for this session: send the user there (answered here only)' }),
}, { title: 'CardOnrampSessionCreated' })

const Amounts = {
  sourceCurrency: t.Optional(Currency),
  sourceAmount: t.Optional(Decimal('fiat to spend')),
  destinationAmount: t.Optional(Decimal('crypto to receive')),
  destinationCurrency: t.Optional(Currency),
}

export const CreateBody = t.Object({
  walletId: t.String({ format: 'uuid', description: 'one of the caller\'s wallets; its network decides the environment (testnet: sandbox)' }),
  ...Amounts,
}, { title: 'CardOnrampCreate', examples: [{ walletId: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f', sourceCurrency: 'eur', sourceAmount: '50.00', destinationCurrency: 'usdc' }] })

export const TenantCreateBody = t.Object({
  externalId: t.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:@-]+$', description: 'the tenant\'s id of its end user, answered as `customer`' }),
  walletAddress: t.String({ minLength: 20, maxLength: 64, description: 'the tenant\'s own wallet that receives the crypto' }),
  chain: t.String({ minLength: 1, maxLength: 64, description: 'family chain id (`ethereum`, `polygon`, `base`, `solana`)' }),
  isTestnet: t.Optional(t.Boolean({ default: false, description: 'true: the sandbox environment' })),
  ...Amounts,
}, {
  title: 'CardOnrampTenantCreate',
  examples: [{
    externalId: 'customer-42',
    walletAddress: '0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e0001',
    chain: 'ethereum',
    isTestnet: true,
    sourceCurrency: 'eur',
    sourceAmount: '50.00',
    destinationCurrency: 'usdc',
  }],
})

export const Id = t.Object({ id: t.String({ format: 'uuid' }) })
export const ListQuery = t.Object({
  limit: t.Optional(integer({ minimum: 1, maximum: 100, default: 20 })),
  offset: t.Optional(integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
})
export const TenantListQuery = t.Object({ ...ListQuery.properties, externalId: t.Optional(t.String({ minLength: 1, maxLength: 128 })) })
export const SessionPage = t.Object({ sessions: t.Array(CardSession), total: integer(), limit: integer(), offset: integer() }, { title: 'CardOnrampSessionPage' })
export const WebhookParams = t.Object({ environment: t.Union([t.Literal('sandbox'), t.Literal('production')]), tenantId: t.String({ format: 'uuid' }) })
export const WebhookAnswer = t.Object({ received: t.Literal(true), applied: t.Boolean() })

export type CreateBody = Static<typeof CreateBody>
export type TenantCreateBody = Static<typeof TenantCreateBody>
export type ListQuery = Static<typeof ListQuery>
