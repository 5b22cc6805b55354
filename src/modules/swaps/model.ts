/** The swaps module's request and response schemas; the service takes `SimulateSwapBody`. */
import { t } from 'elysia'

export const SimulateSwapBody = t.Object({
  walletId: t.String({ format: 'uuid', description: 'must belong to the caller' }),
  fromChain: t.String({ minLength: 1, maxLength: 64, description: 'stored as the record\'s chain' }),
  toChain: t.String({ minLength: 1, maxLength: 64, description: 'required, not stored' }),
  fromToken: t.String({ minLength: 1, maxLength: 128, description: 'stored as the token address' }),
  toToken: t.String({ minLength: 1, maxLength: 128, description: 'stored in metadata as the destination token' }),
  fromAmount: t.String({ pattern: '^\\d+$', maxLength: 78 }),
  isTestnet: t.Optional(t.Boolean()),
  fromTokenSymbol: t.Optional(t.String({ minLength: 1, maxLength: 32, default: 'EURC_TEST' })),
  fromTokenDecimals: t.Optional(t.Integer({ minimum: 0, maximum: 36, default: 6 })),
  toTokenSymbol: t.Optional(t.String({ minLength: 1, maxLength: 32, default: 'SOL' })),
  toTokenDecimals: t.Optional(t.Integer({ minimum: 0, maximum: 36, default: 9 })),
}, {
  examples: [{ walletId: '0b6f4c1e-8a52-4d7e-9b3a-2f1c5d6e7a80', fromChain: 'ethereum', toChain: 'solana', fromToken: '0x08210F9170F89Ab7658F0B5E3fF39b0E03C594D4', toToken: 'So11111111111111111111111111111111111111112', fromAmount: '1000000', isTestnet: true }],
})
export type SimulateSwapBody = typeof SimulateSwapBody.static

export const SimulatedSwap = t.Object({
  transactionId: t.String(),
  quoteId: t.String({ description: 'starts with `sim_`' }),
  txHash: t.String({ description: 'starts with `SIMULATED`' }),
  status: t.Literal('confirmed'),
  fromAmount: t.String({ pattern: '^\\d+$', description: 'as requested: integer text in the smallest unit of `fromToken`' }),
  toAmount: t.String({ pattern: '^\\d+$', description: 'equal to `fromAmount`' }),
  simulation: t.Literal(true),
  createdAt: t.String({ format: 'date-time' }),
}, { title: 'SimulatedSwap' })
