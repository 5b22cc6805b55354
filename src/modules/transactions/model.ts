/**
 * The transactions module's request and response schemas. Where a service takes a
 * request, its input type is the schema's (`typeof SendBody.static`).
 */
import { t } from 'elysia'
import { integer } from '../../http/integer'
import { prose } from '../../http/prose'
import { ErrorEnvelope, Limit, PageNumber } from '../../http/schemas'
import { TX_STATUSES } from './schema'

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T) => t.Union([s, t.Null()])

export const Id = t.Object({ id: t.String({ maxLength: 64 }) })
const Digits = t.String({ pattern: '^[0-9]{1,78}$', description: 'integer string in the token\'s smallest unit; decimals such as `1.5` answer 400' })

export const SendBody = t.Object({
  walletId: t.String({ maxLength: 64, description: 'one of the caller\'s wallets' }),
  chain: t.String({ minLength: 1, maxLength: 64, description: 'the wallet\'s chain: its family id (`ethereum`) or its network\'s registry id (`sepolia` for a testnet wallet)' }),
  toAddress: t.String({ minLength: 1, maxLength: 128 }),
  amount: Digits,
  tokenAddress: t.Optional(t.Union([t.String({ maxLength: 64 }), t.Null()], {
    description: prose`
      ERC-20 contract or SPL mint among the tenant's active tokens of that network; omit, null, the
      zero address or a native SOL placeholder for the native coin`,
  })),
}, {
  additionalProperties: false,
  examples: [{
    walletId: '0b6f4c1e-8a52-4d7e-9b3a-2f1c5d6e7a80',
    chain: 'ethereum',
    toAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    amount: '2500000',
    tokenAddress: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
  }],
})
export type SendBody = typeof SendBody.static

export const BroadcastBody = t.Object({
  signature: t.Optional(t.Union([
    t.String({ maxLength: 200, description: 'EVM: 65-byte hex `r ‖ s ‖ v` over `signingHash`; Solana: 64-byte ed25519 signature over the message, base58 or base64' }),
    t.Object({
      r: t.String({ maxLength: 66 }),
      s: t.String({ maxLength: 66 }),
      yParity: t.Optional(integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: '0 or 1; other values answer SIGNATURE_DECODE_FAILED' })),
      v: t.Optional(integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: '27/28, or EIP-155 (chain id × 2 + 35/36)' })),
    }),
  ])),
  signedTransaction: t.Optional(t.String({ maxLength: 262_144, description: 'EVM: the signed EIP-1559 transaction (hex) with exactly the prepared fields; Solana: the signed transaction (base64)' })),
}, {
  additionalProperties: false,
  examples: [{ signature: { r: '0x6b1f0c3e8a5d2b7f9e4c1a0d3b6e9f2c5a8d1e4b7c0f3a6d9e2b5c8f1a4d7e0b', s: '0x2c5f8a1d4e7b0c3f6a9d2e5b8c1f4a7d0e3b6c9f2a5d8e1b4c7f0a3d6e9b2c5f', yParity: 1 } }],
})
export type BroadcastBody = typeof BroadcastBody.static

export const Broadcast = t.Object({
  id: t.String({ description: 'transaction id' }),
  preparedTransactionId: t.String(),
  status: t.Union([t.Literal('pending'), t.Literal('awaiting_signature')], {
    description: prose`
      \`pending\`: submitted. \`awaiting_signature\`: a piece of an MPC wallet's sponsored user operation
      (docs/gas-sponsorship.md) whose other piece is not signed yet; the operation goes to the bundler
      with the last one`,
  }),
  txHash: t.Union([t.String(), t.Null()], { description: 'null for a sponsored user operation until it is mined (its transaction shows the bundle\'s)' }),
  userOpHash: t.Optional(t.String({ description: 'a sponsored user operation\'s hash' })),
})

/** The error envelope, described for blockchain operations (`BlockchainError` adds `retryable`, `suggestedAction`). */
export const chainErrors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, t.Unsafe({
  ...ErrorEnvelope,
  description: s === 400
    ? 'Schema validation failed, or a value refused (`BlockchainError` with `code`, `retryable`, `suggestedAction` for blockchain operations)'
    : 'The error envelope; `BlockchainError` adds `retryable` and `suggestedAction`',
})]))

export const Created = t.Object({
  id: t.String({ description: 'transaction id' }),
  status: t.Union([t.Literal('pending'), t.Literal('awaiting_signature'), t.Literal('confirmed'), t.Literal('failed')], {
    description: prose`
      \`pending\` (custodial, submitted) or \`awaiting_signature\` (prepared); a retry with the
      Idempotency-Key of a send whose first answer was lost (its process stopped after recording it)
      answers the send's current status, which may be \`confirmed\` or \`failed\``,
  }),
  txHash: t.Union([t.String(), t.Null()]),
  userOpHash: t.Optional(t.String({ description: 'sent sponsored (the tenant pays the gas): the user operation\'s hash; `txHash` is null until it is mined' })),
  sponsored: t.Optional(t.Boolean({ description: 'true: sent as an ERC-4337 user operation whose gas the tenant\'s paymaster pays' })),
  requiresClientSigning: t.Boolean(),
  chain: t.String(),
  isTestnet: t.Boolean(),
  nonce: t.Optional(t.Union([integer(), t.Null()])),
  preparedTransactionId: t.Optional(t.String({ description: 'non-custodial: pass to broadcast' })),
  signingScheme: t.Optional(t.Union([t.Literal('evm-eip1559-hash'), t.Literal('solana-ed25519-message'), t.Literal('evm-user-operation-hash')], {
    description: prose`
      \`evm-user-operation-hash\`: an MPC wallet's send that goes sponsored (docs/gas-sponsorship.md):
      \`signingHash\` is the ERC-4337 user operation's hash (EntryPoint v0.8, EIP-712), signed raw like a
      transaction's; with \`authorization\` also to sign, for the wallet's first sponsored operation`,
  })),
  authorization: t.Optional(t.Object({
    preparedTransactionId: t.String({ description: 'sign its hash like a prepared transaction (MPC: `POST /v1/mpc/wallets/{id}/sign/start` with this id)' }),
    signingHash: t.String({ description: 'keccak256(0x05 ‖ rlp([chainId, address, nonce])), signed raw' }),
    signingScheme: t.Literal('evm-7702-authorization'),
    address: t.String({ description: 'Simple7702Account, what the wallet delegates to' }),
    chainId: integer(),
    nonce: integer({ description: 'the wallet\'s account nonce' }),
  }, {
    description: 'an MPC wallet\'s first sponsored operation: its EIP-7702 authorization, a second hash its parties sign (in either order; the operation goes to the bundler once both are signed)',
  })),
  signingHash: t.Optional(t.String({ description: 'EVM: sign this 32-byte hash with the wallet key (raw secp256k1, no message prefix)' })),
  unsignedTransaction: t.Optional(t.String({ description: 'EVM: the unsigned EIP-1559 serialization whose keccak256 is `signingHash`' })),
  message: t.Optional(t.String({ description: 'Solana: the serialized message (base64); sign its bytes with ed25519' })),
  transaction: t.Optional(t.Object({
    type: t.Literal('eip1559'), chainId: integer(), nonce: integer(), to: t.String(),
    value: t.String({ description: 'wei, integer text' }), data: t.String(),
    gas: t.String({ description: 'gas limit, integer text' }),
    maxFeePerGas: t.String({ description: 'wei per gas, integer text' }),
    maxPriorityFeePerGas: t.String({ description: 'wei per gas, integer text' }),
  }, { description: 'EVM: the prepared fields, for wallets that sign a transaction object' })),
  lastValidBlockHeight: t.Optional(integer()),
  expiresAt: t.Optional(t.String({ format: 'date-time', description: 'non-custodial: broadcast before this time' })),
}, { title: 'CreatedTransaction' })
export type Created = typeof Created.static

export const FeeQuote = t.Object({
  chain: t.String(), isTestnet: t.Boolean(),
  estimatedGas: t.Union([t.String(), t.Null()], { description: 'gas units (EVM); null on Solana' }),
  maxFeePerGas: t.Union([t.String(), t.Null()], { description: 'wei per gas, integer text (EVM); null on Solana' }),
  maxPriorityFeePerGas: t.Union([t.String(), t.Null()], { description: 'wei per gas, integer text (EVM); null on Solana' }),
  estimatedFee: t.String({ description: 'upper bound of the network fee in the native coin\'s smallest unit (EVM: gas × maxFeePerGas; Solana: the fee for the message)' }),
  estimatedFeeNative: t.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]*[1-9])?$', description: '`estimatedFee` formatted with the native coin\'s decimals' }),
  nativeTokenSymbol: t.String(), nativeTokenDecimals: integer(),
}, { title: 'FeeQuote' })

export const PagePagination = t.Object({ page: integer(), limit: integer(), total: integer(), totalPages: integer() })
export const ListQuery = t.Object({
  page: t.Optional(PageNumber),
  limit: t.Optional(Limit(100, 20)),
  walletId: t.Optional(t.String({ maxLength: 64 })),
  chain: t.Optional(t.String({ maxLength: 64, description: 'a family id (`ethereum`: mainnet and testnet) or a testnet\'s registry id (`sepolia`: that testnet only)' })),
  status: t.Optional(t.Union(TX_STATUSES.map((s) => t.Literal(s)))),
})
export type ListQuery = typeof ListQuery.static

export const TokenRef = t.Object({
  address: Nullable(t.String()),
  symbol: t.String(),
  decimals: integer(),
}, { description: '`address` is null for the native coin' })

export const Transaction = t.Object({
  id: t.String({ format: 'uuid' }),
  walletId: t.String(),
  type: t.Union([t.Literal('send'), t.Literal('swap'), t.Literal('approval'), t.Literal('supply'), t.Literal('withdraw'), t.Literal('dapp')], {
    description: prose`
      \`approval\`: an ERC-20 approval sent for a swap (\`POST /v1/swap/approve\`) or before a
      lending supply; \`supply\`, \`withdraw\`: a lending pool's (\`POST /v1/aave/supply\`,
      \`/withdraw\`; a withdraw's \`amount\` is 0 and \`metadata.amount\` what is withdrawn);
      \`dapp\`: a transaction the client signed and broadcast with \`POST /v1/dapps/broadcast\``,
  }),
  chain: t.String(),
  isTestnet: t.Boolean(),
  status: t.Union([t.Literal('awaiting_signature'), t.Literal('pending'), t.Literal('confirmed'), t.Literal('failed')]),
  requiresClientSigning: t.Boolean(),
  txHash: Nullable(t.String()),
  userOpHash: Nullable(t.String({ description: 'a sponsored send (docs/gas-sponsorship.md): the ERC-4337 user operation\'s hash; `txHash` is the bundle\'s once mined' })),
  fromAddress: t.String(),
  toAddress: Nullable(t.String()),
  amount: t.String({ description: 'smallest unit, integer string' }),
  token: TokenRef,
  nonce: Nullable(integer()),
  confirmations: integer(),
  blockNumber: Nullable(integer()),
  blockTimestamp: Nullable(t.String({ format: 'date-time' })),
  feePaid: Nullable(t.String({ description: 'network fee paid once mined, smallest unit of the native coin' })),
  failureReason: Nullable(t.String()),
  resendCount: integer(),
  replacedHashes: t.Array(t.String(), {
    description: prose`
      EVM: the other hashes this send was signed with for its nonce (a resend after the node dropped
      it, or a replacement with higher fees). Until it is mined any one of them may be; once mined,
      \`txHash\` is the one mined and these were replaced (never mined). Empty for most sends.`,
  }),
  simulation: t.Boolean(),
  quoteId: Nullable(t.String()),
  metadata: Nullable(t.Record(t.String(), t.Any())),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
}, { title: 'Transaction' })

export const TransactionStatus = t.Object({
  id: t.String(),
  txHash: Nullable(t.String()),
  status: Transaction.properties.status,
  confirmations: integer(),
  blockNumber: Nullable(integer()),
  blockTimestamp: Nullable(t.String({ format: 'date-time' })),
  failureReason: Nullable(t.String()),
  replacedHashes: Transaction.properties.replacedHashes,
}, { title: 'TransactionStatus' })

/**
 * One item of the unified feed: sends, swaps and (later) bank ramp movements in one
 * shape. `id` is `<source>:<record id>` so items of different sources never collide.
 */
export const FeedItem = t.Object({
  id: t.String({ description: '`tx:<transaction id>`, `ramp:deposit:<id>` or `ramp:payout:<id>`' }),
  kind: t.Union([t.Literal('send'), t.Literal('swap'), t.Literal('approval'), t.Literal('supply'), t.Literal('withdraw'), t.Literal('dapp'), t.Literal('deposit'), t.Literal('payout')]),
  direction: t.Union([t.Literal('out'), t.Literal('in'), t.Literal('swap')]),
  status: t.String({ description: '`awaiting_signature`, `pending`, `confirmed` or `failed` for chain records' }),
  chain: t.String(),
  isTestnet: t.Boolean(),
  amount: t.String({ description: 'smallest unit, integer string' }),
  token: TokenRef,
  counterparty: Nullable(t.String({ description: 'the other address (recipient of a send, spender of an approval); null for swaps' })),
  txHash: Nullable(t.String()),
  walletId: Nullable(t.String()),
  simulation: t.Boolean(),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
}, { title: 'FeedItem' })

export const TransactionPage = t.Object({ data: t.Array(Transaction), pagination: PagePagination })
export const FeedPage = t.Object({ data: t.Array(FeedItem), pagination: PagePagination })
