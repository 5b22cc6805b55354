/** The swaps module's request and response schemas; the service takes `SimulateSwapBody`. */
import { t } from 'elysia'
import { integer } from '../../http/integer'
import { prose } from '../../http/prose'
import { BroadcastBody, Created } from '../transactions'
import { GaslessQuote } from './gasless-model'

export const SimulateSwapBody = t.Object({
  walletId: t.String({ format: 'uuid', description: 'must belong to the caller' }),
  fromChain: t.String({ minLength: 1, maxLength: 64, description: 'stored as the record\'s chain' }),
  toChain: t.String({ minLength: 1, maxLength: 64, description: 'required, not stored' }),
  fromToken: t.String({ minLength: 1, maxLength: 128, description: 'stored as the token address' }),
  toToken: t.String({ minLength: 1, maxLength: 128, description: 'stored in metadata as the destination token' }),
  fromAmount: t.String({ pattern: '^\\d+$', maxLength: 78 }),
  isTestnet: t.Optional(t.Boolean()),
  fromTokenSymbol: t.Optional(t.String({ minLength: 1, maxLength: 32, default: 'EURC_TEST' })),
  fromTokenDecimals: t.Optional(integer({ minimum: 0, maximum: 36, default: 6 })),
  toTokenSymbol: t.Optional(t.String({ minLength: 1, maxLength: 32, default: 'SOL' })),
  toTokenDecimals: t.Optional(integer({ minimum: 0, maximum: 36, default: 9 })),
}, {
  examples: [{
    walletId: '0b6f4c1e-8a52-4d7e-9b3a-2f1c5d6e7a80',
    fromChain: 'ethereum',
    toChain: 'solana',
    fromToken: '0x08210F9170F89Ab7658F0B5E3fF39b0E03C594D4',
    toToken: 'So11111111111111111111111111111111111111112',
    fromAmount: '1000000',
    isTestnet: true,
  }],
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

/** The chains a quote may name (the spec's list). */
export const SWAP_CHAINS = ['ethereum', 'polygon', 'gnosis', 'bsc', 'arbitrum', 'optimism', 'base', 'avalanche', 'celo', 'flowevm', 'solana'] as const

const Address = t.String({ pattern: '^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$', description: '`0x` and 40 hex characters, or a base58 address of 32 to 44 characters' })
const Digits = t.String({ pattern: '^[0-9]{1,78}$', description: 'integer string in the token\'s smallest unit; decimals such as `1.5` answer 400' })
const WalletId = t.String({ format: 'uuid', description: 'one of the caller\'s wallets' })

export const QuoteBody = t.Object({
  walletId: WalletId,
  fromChain: t.String({
    minLength: 1,
    maxLength: 64,
    description: prose`
      one of ${SWAP_CHAINS.map((c) => `\`${c}\``).join(', ')} (enabled for the tenant); another
      answers 400 \`Unsupported chain: <chain>\``,
  }),
  toChain: t.String({ minLength: 1, maxLength: 64, description: 'same set; equal to `fromChain` for a same-chain swap' }),
  fromToken: Address,
  toToken: Address,
  fromAmount: t.String({ pattern: '^[0-9]{1,78}(\\.[0-9]{1,78})?$', description: 'forwarded to the aggregator unscaled: send an integer string in the smallest unit' }),
  slippage: t.Optional(t.Number({ minimum: 0, maximum: 50, default: 0.5, description: 'percent (0.5 = 0.5%), divided by 100 before forwarding' })),
  toAddress: t.Optional(t.String({ minLength: 1, maxLength: 128, description: 'receiver of the output; default: see rule 2' })),
  isTestnet: t.Optional(t.Boolean({
    default: false,
    description: prose`
      \`true\`: a swap on the chain's testnet, from a testnet wallet; refused with 400 unless the
      aggregator supports that testnet chain id (LI.FI supports none; the sandbox aggregator the
      devnet's \`gnosis-chiado\`)`,
  })),
}, {
  additionalProperties: false,
  examples: [{
    walletId: '0b6f4c1e-8a52-4d7e-9b3a-2f1c5d6e7a80',
    fromChain: 'gnosis',
    toChain: 'gnosis',
    fromToken: '0xcB444e90D8198415266c6a2724b7900fb12FC56E',
    toToken: '0x0000000000000000000000000000000000000000',
    fromAmount: '10000000000000000000',
    slippage: 0.5,
  }],
})
export type QuoteBody = typeof QuoteBody.static

const QuoteToken = t.Object({ address: t.String(), symbol: t.String(), decimals: integer(), name: t.String() })
const Opt = <T extends Parameters<typeof t.Optional>[0]>(s: T) => t.Optional(s)

export const SwapQuote = t.Object({
  quoteId: t.String({ description: 'the aggregator\'s quote id; pass it unchanged to `POST /v1/swap/execute` (kept for 10 minutes)' }),
  isTestnet: t.Boolean(),
  sourceChainType: t.Union([t.Literal('evm'), t.Literal('solana')]),
  fromChain: t.String(), toChain: t.String(),
  fromChainId: integer({ description: 'EVM chain id; Solana mainnet 1399811149, devnet 1399811150' }),
  toChainId: integer(),
  fromToken: QuoteToken, toToken: QuoteToken,
  fromAmount: t.String({ description: 'smallest unit, the aggregator\'s estimate' }),
  toAmount: t.String({ description: 'smallest unit, the aggregator\'s estimate' }),
  toAmountMin: t.String({ description: 'smallest unit: the least delivered within the slippage' }),
  tool: t.String(),
  approvalAddress: t.Union([t.String(), t.Null()], { description: 'spender to approve; null for native source tokens, Solana sources, or when none is returned' }),
  needsApproval: t.Boolean({ description: 'true only when the current allowance to `approvalAddress` is exactly 0' }),
  estimatedGas: t.String({ description: 'gas units; `0` when none is given' }),
  estimatedGasCostWei: Opt(t.String({ description: 'gas × the node\'s max fee per gas, wei' })),
  estimatedGasCostNative: Opt(t.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]*[1-9])?$', description: '`estimatedGasCostWei` in the native coin (decimal text)' })),
  nativeTokenSymbol: Opt(t.String()),
  transactionValueNative: Opt(t.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]*[1-9])?$', description: 'the transaction\'s value in the native coin (decimal text)' })),
  totalCostRequired: Opt(t.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]*[1-9])?$', description: 'gas cost + value in the native coin (decimal text)' })),
  nativeTokenBalance: Opt(t.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]*[1-9])?$', description: 'the wallet\'s native balance (decimal text)' })),
  sufficientBalance: Opt(t.Boolean({ description: 'the native balance covers `totalCostRequired`' })),
  executionTime: t.Number({ description: 'the aggregator\'s estimated duration, seconds' }),
  transactionData: t.Object({
    to: t.String(), data: t.String({ description: 'EVM calldata (hex); for a Solana source a base64 versioned transaction' }),
    value: t.String({ description: 'wei, integer text' }), gasLimit: t.Union([t.String(), t.Null()], { description: 'integer text' }),
  }),
  requiresDestinationSignature: t.Literal(false),
  priceImpact: Opt(t.String({
    pattern: '^(0|[1-9][0-9]*)(\\.[0-9]*[1-9])?$',
    description: prose`
      declared by the spec, never populated: always absent (were it given, decimal text like every
      ratio in an answer)`,
  })),
  gasless: Opt(GaslessQuote),
}, { title: 'SwapQuote' })

export const AllowanceBody = t.Object({
  walletId: WalletId,
  tokenAddress: t.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'an ERC-20 active for the tenant on the wallet\'s network' }),
  spenderAddress: t.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'the quote\'s `approvalAddress`' }),
  amount: t.Optional(Digits),
}, {
  additionalProperties: false,
  examples: [{
    walletId: '0b6f4c1e-8a52-4d7e-9b3a-2f1c5d6e7a80',
    tokenAddress: '0xcB444e90D8198415266c6a2724b7900fb12FC56E',
    spenderAddress: '0x1231DEB6f5749EF6cE6943a275A1D3E7486F4EaE',
    amount: '10000000000000000000',
  }],
})
export type AllowanceBody = typeof AllowanceBody.static

export const AllowanceView = t.Object({
  walletId: t.String(), chain: t.String(), tokenAddress: t.String(), spenderAddress: t.String(),
  allowance: t.String({ description: 'smallest unit, integer text, read from the chain' }),
  needsApproval: t.Boolean({ description: 'with `amount`: allowance < amount; without: allowance is exactly 0 (as the quote says)' }),
}, { title: 'SwapAllowance' })

export const ApproveBody = t.Object({
  walletId: WalletId,
  tokenAddress: AllowanceBody.properties.tokenAddress,
  spenderAddress: AllowanceBody.properties.spenderAddress,
  amount: Digits,
}, {
  additionalProperties: false,
  examples: [{
    walletId: '0b6f4c1e-8a52-4d7e-9b3a-2f1c5d6e7a80',
    tokenAddress: '0xcB444e90D8198415266c6a2724b7900fb12FC56E',
    spenderAddress: '0x1231DEB6f5749EF6cE6943a275A1D3E7486F4EaE',
    amount: '10000000000000000000',
  }],
})
export type ApproveBody = typeof ApproveBody.static

export const ExecuteBody = t.Object({
  quoteId: t.String({ minLength: 1, maxLength: 256, description: 'as `POST /v1/swap/quote` answered it, within 10 minutes' }),
}, { additionalProperties: false, examples: [{ quoteId: '0x3f1c5d6e7a800b6f4c1e8a524d7e9b3a2f1c5d6e7a800b6f4c1e8a524d7e9b3a' }] })
export type ExecuteBody = typeof ExecuteBody.static

export const SwapBroadcastBody = t.Object({
  transactionId: t.String({ maxLength: 64, description: 'the `preparedTransactionId` (or `id`) that approve or execute answered' }),
  signature: t.Optional(BroadcastBody.properties.signature),
  signedTransaction: t.Optional(t.String({ maxLength: 262_144, description: 'the signed EIP-1559 transaction (hex) with exactly the prepared fields' })),
}, {
  additionalProperties: false,
  examples: [{
    transactionId: '5d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6',
    signature: '0x6b1f0c3e8a5d2b7f9e4c1a0d3b6e9f2c5a8d1e4b7c0f3a6d9e2b5c8f1a4d7e0b2c5f8a1d4e7b0c3f6a9d2e5b8c1f4a7d0e3b6c9f2a5d8e1b4c7f0a3d6e9b2c5f1b',
  }],
})
export type SwapBroadcastBody = typeof SwapBroadcastBody.static

export const SwapCreated = t.Object({
  ...Created.properties,
  quoteId: t.Optional(t.String()),
  type: t.Optional(t.Union([t.Literal('swap'), t.Literal('approval')])),
}, { title: 'SwapTransactionCreated' })
