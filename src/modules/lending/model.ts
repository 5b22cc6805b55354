/** The lending group's (`/v1/aave`) request and response schemas; the verbs take the request types. */
import { t } from 'elysia'
import { integer } from '../../http/integer'
import { prose } from '../../http/prose'
import { BroadcastBody, Created } from '../transactions'

const Address = t.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: '`0x` and 40 hex characters' })
const Digits = t.String({ pattern: '^[0-9]{1,78}$', description: 'integer string in the token\'s smallest unit; decimals such as `1.5` answer 400' })
const WalletId = t.String({ maxLength: 64, description: 'one of the caller\'s EVM wallets; its network (`isTestnet`) picks the pool' })
const IntText = (description: string) => t.String({ pattern: '^[0-9]+$', description })

export const PositionsQuery = t.Object({
  walletId: t.Optional(t.String({ maxLength: 64, description: 'one of the caller\'s wallets; default: every EVM wallet of the caller on a network with an Aave pool' })),
})
export type PositionsQuery = typeof PositionsQuery.static

export const RateHistoryQuery = t.Object({
  chain: t.String({ minLength: 1, maxLength: 64, description: 'a family id (`ethereum`, with `isTestnet`) or a testnet\'s registry id (`sepolia`)' }),
  isTestnet: t.Optional(t.Boolean({ default: false })),
  asset: Address,
  from: t.Optional(t.String({ format: 'date-time', description: 'samples taken at or after this time' })),
  to: t.Optional(t.String({ format: 'date-time', description: 'samples taken at or before this time' })),
  limit: t.Optional(integer({ minimum: 1, maximum: 1000, default: 100, description: 'the newest samples in the range, at most this many' })),
})
export type RateHistoryQuery = typeof RateHistoryQuery.static

const LendingBody = (example: Record<string, string>, amountDescription: string) => t.Object({
  walletId: WalletId,
  asset: t.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'the reserve\'s underlying ERC-20: one of the tenant\'s active tokens on the wallet\'s network, listed by the pool' }),
  amount: t.String({ ...Digits, description: amountDescription }),
}, { additionalProperties: false, examples: [example] })

export const SupplyBody = LendingBody(
  { walletId: '0b6f4c1e-8a52-4d7e-9b3a-2f1c5d6e7a80', asset: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238', amount: '25000000' },
  'integer string in the asset\'s smallest unit (25 USDC = `25000000`), greater than 0',
)
export type SupplyBody = typeof SupplyBody.static

export const WithdrawBody = LendingBody(
  { walletId: '0b6f4c1e-8a52-4d7e-9b3a-2f1c5d6e7a80', asset: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238', amount: '10000000' },
  'integer string in the asset\'s smallest unit, greater than 0 and at most the wallet\'s aToken balance',
)
export type WithdrawBody = typeof WithdrawBody.static

export const LendingBroadcastBody = t.Object({
  transactionId: t.String({ maxLength: 64, description: 'the `preparedTransactionId` (or `id`) that prepare-supply or prepare-withdraw answered' }),
  signature: t.Optional(BroadcastBody.properties.signature),
  signedTransaction: t.Optional(t.String({ maxLength: 262_144, description: 'the signed EIP-1559 transaction (hex) with exactly the prepared fields' })),
}, {
  additionalProperties: false,
  examples: [{
    transactionId: '5d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6',
    signature: '0x6b1f0c3e8a5d2b7f9e4c1a0d3b6e9f2c5a8d1e4b7c0f3a6d9e2b5c8f1a4d7e0b2c5f8a1d4e7b0c3f6a9d2e5b8c1f4a7d0e3b6c9f2a5d8e1b4c7f0a3d6e9b2c5f1b',
  }],
})
export type LendingBroadcastBody = typeof LendingBroadcastBody.static

const LendingType = t.Union([t.Literal('approval'), t.Literal('supply'), t.Literal('withdraw')])

export const LendingTransaction = t.Object({
  ...Created.properties,
  type: LendingType,
  pool: t.String({ description: 'the Aave Pool called (or approved as spender)' }),
  asset: t.String(),
  amount: t.String({ description: 'smallest unit of the asset, integer text' }),
}, { title: 'LendingTransactionCreated' })

export const SupplySent = t.Object({
  ...LendingTransaction.properties,
  type: t.Literal('supply'),
  approval: t.Union([LendingTransaction, t.Null()], {
    description: prose`
      the ERC-20 approval of the pool sent first (same nonce lane, the nonce before the supply) when
      the allowance was short; null otherwise, and when the supply went gas-sponsored (\`sponsored\`:
      true): its approval is then in the same user operation, one atomic \`executeBatch\``,
  }),
}, { title: 'LendingSupplySent' })

export const WithdrawSent = t.Object({
  ...LendingTransaction.properties,
  type: t.Literal('withdraw'),
}, { title: 'LendingWithdrawSent' })

export const PreparedStep = t.Object({
  ...LendingTransaction.properties,
  nextStep: t.Union([t.Literal('broadcast'), t.Literal('broadcast_then_prepare_again')], {
    description: prose`
      \`broadcast\`: sign and broadcast this transaction; \`broadcast_then_prepare_again\`: this is
      the approval of the pool, broadcast it, wait until it is confirmed, then call the same prepare
      route again for the supply itself`,
  }),
}, { title: 'LendingPreparedStep' })

const Reserve = t.Object({
  asset: t.String(), symbol: t.String(), decimals: integer(),
  aTokenAddress: t.String(),
  aTokenBalance: IntText('what the wallet has supplied (with interest), smallest unit of the asset'),
  liquidityRate: IntText('`currentLiquidityRate` in ray (1e27): the yearly supply rate'),
  supplyApr: t.String({ description: 'the supply rate as decimal text (0.035 = 3.5%)' }),
  supplyApy: t.String({ description: 'compounded every second, decimal text (18 decimals at most)' }),
})

export const Positions = t.Object({
  positions: t.Array(t.Object({
    walletId: t.String(), address: t.String(), chain: t.String(), isTestnet: t.Boolean(), network: t.String({ description: 'registry id' }),
    pool: t.String(),
    account: t.Object({
      totalCollateralBase: IntText('the pool\'s base currency (USD with 8 decimals on Aave v3)'),
      totalDebtBase: IntText('base currency'),
      availableBorrowsBase: IntText('base currency'),
      currentLiquidationThreshold: IntText('basis points'),
      ltv: IntText('basis points'),
      healthFactor: IntText('wad (1e18); 2^256 − 1 without debt'),
    }, { description: 'the pool\'s `getUserAccountData`' }),
    reserves: t.Array(Reserve, { description: 'the tenant\'s active tokens on the network that the pool lists and the wallet has supplied' }),
  })),
}, { title: 'LendingPositions' })

export const RateHistory = t.Object({
  chain: t.String(), isTestnet: t.Boolean(), network: t.String(), asset: t.String(), pool: t.String(),
  current: t.Object(
    {
      liquidityRate: IntText('`currentLiquidityRate` in ray (1e27)'),
      supplyApr: t.String({ description: 'decimal text' }),
      supplyApy: t.String({ description: 'decimal text, compounded every second' }),
      readAt: t.String({ format: 'date-time' }),
    },
    { description: 'read from the pool for this request (and recorded)' },
  ),
  samples: t.Array(t.Object({
    sampledAt: t.String({ format: 'date-time' }),
    liquidityRate: IntText('ray'),
    supplyApr: t.String({ description: 'decimal text' }), supplyApy: t.String({ description: 'decimal text, compounded every second' }),
  }), { description: 'oldest first; one per `AAVE_RATE_SAMPLE_SECONDS` slot at most' }),
}, { title: 'LendingRateHistory' })
