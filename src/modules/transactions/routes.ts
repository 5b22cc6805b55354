/**
 * Transactions group. Every route acts on the caller's own transactions and wallets;
 * another user's or another tenant's id answers 404.
 */
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { IdempotencyHeaders, idempotency } from '../../http/idempotency'
import { ErrorEnvelope, errorResponses, SchemaErrorEnvelope } from '../../http/schemas'
import { security } from '../../http/security'
import { lazy } from '../../lib/lazy'
import { TX_STATUSES } from './schema'
import { FeedItem, statusView, Transaction, TransactionStatus, transactionView } from './view'

/** The transaction services, with the chain libraries they use, are loaded by the first transaction request. */
const impl = lazy(() => import('./impl'))

const Id = t.Object({ id: t.String({ maxLength: 64 }) })
const Digits = t.String({ pattern: '^[0-9]{1,78}$', description: 'integer string in the token\'s smallest unit; decimals such as `1.5` answer 400' })

const SendBody = t.Object({
  walletId: t.String({ maxLength: 64, description: 'one of the caller\'s wallets' }),
  chain: t.String({ minLength: 1, maxLength: 64, description: 'the wallet\'s chain: its family id (`ethereum`) or its network\'s registry id (`sepolia` for a testnet wallet)' }),
  toAddress: t.String({ minLength: 1, maxLength: 128 }),
  amount: Digits,
  tokenAddress: t.Optional(t.Union([t.String({ maxLength: 64 }), t.Null()], { description: 'ERC-20 contract or SPL mint among the tenant\'s active tokens of that network; omit, null, the zero address or a native SOL placeholder for the native coin' })),
}, { additionalProperties: false })

const BlockchainErrorEnvelope = t.Object({
  ...ErrorEnvelope.properties,
  retryable: t.Optional(t.Boolean()),
  suggestedAction: t.Optional(t.String()),
}, { title: 'BlockchainError', description: '`error: BlockchainError` with `code`, `retryable` and sometimes `suggestedAction`.' })
/** The standard envelope of the status, or a BlockchainError (same envelope with `retryable`, `suggestedAction`). */
const chainErrors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, s === 400
  ? t.Union([SchemaErrorEnvelope, BlockchainErrorEnvelope], { description: 'Schema validation failed, or a value refused (`BlockchainError` with `code`, `retryable`, `suggestedAction` for blockchain operations)' })
  : t.Unsafe({ ...BlockchainErrorEnvelope, description: 'The error envelope; `BlockchainError` adds `retryable` and `suggestedAction`' })]))

const Created = t.Object({
  id: t.String({ description: 'transaction id' }),
  status: t.Union([t.Literal('pending'), t.Literal('awaiting_signature')]),
  txHash: t.Union([t.String(), t.Null()]),
  requiresClientSigning: t.Boolean(),
  chain: t.String(),
  isTestnet: t.Boolean(),
  nonce: t.Optional(t.Union([t.Integer(), t.Null()])),
  preparedTransactionId: t.Optional(t.String({ description: 'non-custodial: pass to broadcast' })),
  signingScheme: t.Optional(t.Union([t.Literal('evm-eip1559-hash'), t.Literal('solana-ed25519-message')])),
  signingHash: t.Optional(t.String({ description: 'EVM: sign this 32-byte hash with the wallet key (raw secp256k1, no message prefix)' })),
  unsignedTransaction: t.Optional(t.String({ description: 'EVM: the unsigned EIP-1559 serialization whose keccak256 is `signingHash`' })),
  message: t.Optional(t.String({ description: 'Solana: the serialized message (base64); sign its bytes with ed25519' })),
  transaction: t.Optional(t.Object({
    type: t.Literal('eip1559'), chainId: t.Integer(), nonce: t.Integer(), to: t.String(), value: t.String(), data: t.String(),
    gas: t.String(), maxFeePerGas: t.String(), maxPriorityFeePerGas: t.String(),
  }, { description: 'EVM: the prepared fields, for wallets that sign a transaction object' })),
  lastValidBlockHeight: t.Optional(t.Integer()),
  expiresAt: t.Optional(t.String({ format: 'date-time', description: 'non-custodial: broadcast before this time' })),
}, { title: 'CreatedTransaction' })

const PagePagination = t.Object({ page: t.Integer(), limit: t.Integer(), total: t.Integer(), totalPages: t.Integer() })
const ListQuery = t.Object({
  page: t.Optional(t.Integer({ minimum: 1, default: 1 })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20 })),
  walletId: t.Optional(t.String({ maxLength: 64 })),
  chain: t.Optional(t.String({ maxLength: 64, description: 'a family id (`ethereum`: mainnet and testnet) or a testnet\'s registry id (`sepolia`: that testnet only)' })),
  status: t.Optional(t.Union(TX_STATUSES.map((s) => t.Literal(s)))),
})

export function transactionRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/transactions', detail: { tags: ['Transactions'] } })
    .use(security(deps))
    .use(idempotency(deps))
    .post('/', async ({ body, ctx, set }) => {
      const out = await (await impl()).createTransaction(ctx, body)
      set.status = 201
      return out
    }, {
      auth: 'any',
      idempotent: true,
      headers: IdempotencyHeaders,
      body: SendBody,
      response: { 201: Created, ...errorResponses('standard', 400, 401, 403, 404, 409, 503), ...chainErrors(400) },
      detail: {
        operationId: 'createTransaction',
        summary: 'Send native coins or tokens',
        description: [
          'Custodial wallets (`aes_single`, and `client_side_pending` while a migration runs): the service signs and submits; 201 `{ id, status: pending, txHash }`. Repeating the call sends a second transaction, unless it carries the same optional `Idempotency-Key` (see Idempotency: the first answer is replayed with `idempotency-replayed: true` and nothing is sent again; every answer carries `idempotency-replayed`).',
          'Concurrent sends from one wallet get consecutive nonces (a per-wallet, per-network counter in the database, shared by every API process, resynchronised from the chain when the node says "nonce too low/high"). A send the node refuses, or that never reaches it, is recorded `failed` and its nonce is reused by the next send.',
          'Non-custodial wallets (`client_side`): the service prepares the transaction (nonce from the chain\'s pending count, gas and EIP-1559 fees, or a recent blockhash on Solana) and answers `requiresClientSigning: true`, `txHash: null`, `status: awaiting_signature`, `preparedTransactionId`, and what to sign: EVM `signingHash` = keccak256(`unsignedTransaction`), signed raw (no EIP-191 prefix); Solana `message` (base64) signed with ed25519. Then call `POST /v1/transactions/{preparedTransactionId}/broadcast` before `expiresAt` (PREPARED_TX_TTL_SECONDS, default 600).',
          'Errors: 400 schema (a decimal `amount`), unsupported chain, chain other than the wallet\'s, bad address, unknown token; 400 `BlockchainError` `TRANSACTION_WOULD_FAIL` when the node says the call would revert or funds are short, `TRANSACTION_REJECTED` when it refuses the submission; 404 unknown wallet; 503 when the RPC is down.',
        ].join('\n\n'),
      },
    })
    .post('/quote', async ({ body, ctx }) => (await impl()).quoteTransaction(ctx, body), {
      auth: 'any',
      rateLimit: { max: 60, windowSeconds: 60 },
      body: SendBody,
      response: {
        200: t.Object({
          chain: t.String(), isTestnet: t.Boolean(),
          estimatedGas: t.Union([t.String(), t.Null()], { description: 'gas units (EVM); null on Solana' }),
          maxFeePerGas: t.Union([t.String(), t.Null()]), maxPriorityFeePerGas: t.Union([t.String(), t.Null()]),
          estimatedFee: t.String({ description: 'upper bound of the network fee in the native coin\'s smallest unit (EVM: gas × maxFeePerGas; Solana: the fee for the message)' }),
          estimatedFeeNative: t.String({ description: '`estimatedFee` formatted with the native coin\'s decimals' }),
          nativeTokenSymbol: t.String(), nativeTokenDecimals: t.Integer(),
        }, { title: 'FeeQuote' }),
        ...errorResponses('standard', 400, 401, 403, 404, 429, 503), ...chainErrors(400),
      },
      detail: { operationId: 'quoteTransaction', summary: 'Estimate gas and fee for a send', description: 'Same body as create; nothing is stored or sent. Read from the chain. 60 per minute per IP.' },
    })
    .post('/:id/broadcast', async ({ params, body, ctx }) => (await impl()).broadcastTransaction(ctx, params.id, body), {
      auth: 'any',
      rateLimit: { max: 20, windowSeconds: 60 },
      params: Id,
      body: t.Object({
        signature: t.Optional(t.Union([
          t.String({ maxLength: 200, description: 'EVM: 65-byte hex `r ‖ s ‖ v` over `signingHash`; Solana: 64-byte ed25519 signature over the message, base58 or base64' }),
          t.Object({ r: t.String({ maxLength: 66 }), s: t.String({ maxLength: 66 }), yParity: t.Optional(t.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: '0 or 1; other values answer SIGNATURE_DECODE_FAILED' })), v: t.Optional(t.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: '27/28, or EIP-155 (chain id × 2 + 35/36)' })) }),
        ])),
        signedTransaction: t.Optional(t.String({ maxLength: 262_144, description: 'EVM: the signed EIP-1559 transaction (hex) with exactly the prepared fields; Solana: the signed transaction (base64)' })),
      }, { additionalProperties: false }),
      response: {
        200: t.Object({ id: t.String({ description: 'transaction id' }), preparedTransactionId: t.String(), status: t.Literal('pending'), txHash: t.String() }),
        ...errorResponses('standard', 400, 401, 403, 404, 409, 410, 429, 503), ...chainErrors(400, 404, 409, 410),
      },
      detail: {
        operationId: 'broadcastTransaction',
        summary: 'Submit a client-signed transaction',
        description: [
          '`{id}` is the `preparedTransactionId` (the transaction id is accepted too). Send exactly one of `signature` or `signedTransaction`. The signature must recover to the wallet\'s address. 20 per minute per IP.',
          'Errors (`error: BlockchainError`, `code`, `retryable`, `suggestedAction`): 404 `PREPARED_TX_NOT_FOUND`; 409 `PREPARED_TX_ALREADY_USED` (also for the loser of two simultaneous broadcasts); 410 `PREPARED_TX_EXPIRED` (gone for good: prepare a new one); 400 `SIGNATURE_DECODE_FAILED` (malformed, or a signed transaction whose fields differ from the prepared ones); 400 `WRONG_SIGNER`; 400 `TRANSACTION_REJECTED` when the node refuses it. When the RPC cannot be reached the prepared transaction stays usable and the answer is 503.',
        ].join('\n\n'),
      },
    })
    .get('/', async ({ query, ctx }) => (await impl()).listTransactions(ctx, { page: query.page ?? 1, limit: query.limit ?? 20, walletId: query.walletId, chain: query.chain, status: query.status }), {
      auth: 'any',
      query: ListQuery,
      response: { 200: t.Object({ data: t.Array(Transaction), pagination: PagePagination }), ...errorResponses('standard', 400, 401) },
      detail: { operationId: 'listTransactions', summary: 'One\'s transaction history', description: 'Sends and swaps (simulated ones included), newest first. Filters: `walletId`, `chain` (family id), `status`.' },
    })
    .get('/aggregated/', async ({ query, ctx }) => (await impl()).aggregatedFeed(ctx, { page: query.page ?? 1, limit: query.limit ?? 20, walletId: query.walletId, chain: query.chain, status: query.status }), {
      auth: 'any',
      query: ListQuery,
      response: { 200: t.Object({ data: t.Array(FeedItem), pagination: PagePagination }), ...errorResponses('standard', 400, 401) },
      detail: {
        operationId: 'listAggregatedTransactions',
        summary: 'Unified activity feed',
        description: 'Sends, swaps and (once the bank ramp lands) ramp movements as items of one shape, newest first: `{ id, kind, direction, status, chain, isTestnet, amount, token { address, symbol, decimals }, counterparty, txHash, walletId, simulation, createdAt, updatedAt }`. `id` is prefixed by its source (`tx:`).',
      },
    })
    .get('/aggregated/:id', async ({ params, ctx }) => (await impl()).aggregatedItem(ctx, params.id), {
      auth: 'any',
      params: Id,
      response: { 200: FeedItem, ...errorResponses('standard', 401, 404) },
      detail: { operationId: 'getAggregatedTransaction', summary: 'One item of the unified feed', description: 'By the item `id` (`tx:<uuid>`), or a bare transaction id.' },
    })
    .get('/:id/status', async ({ params, ctx }) => statusView(await (await impl()).transactionStatus(ctx, params.id)), {
      auth: 'any',
      params: Id,
      response: { 200: TransactionStatus, ...errorResponses('standard', 401, 404, 503) },
      detail: { operationId: 'getTransactionStatus', summary: 'Status read from the chain', description: 'Reads the chain and saves any change (`confirmations`, `blockNumber`, `blockTimestamp`, status). A background job does the same with backoff (1 s doubling to 60 s) while a transaction is pending, so statuses settle without polling; a transaction dropped from the mempool is resent with a higher fee within TX_MAX_FEE_BUMP_PERCENT, or `failed` with `failureReason`. A non-custodial send whose prepared transaction expired unbroadcast reads `failed`.' },
    })
    .get('/:id', async ({ params, ctx }) => transactionView(await (await impl()).ownTransaction(ctx, params.id)), {
      auth: 'any',
      params: Id,
      response: { 200: Transaction, ...errorResponses('standard', 401, 404) },
      detail: { operationId: 'getTransaction', summary: 'One transaction as stored', description: 'No chain read (use `/status` for that).' },
    })
}
