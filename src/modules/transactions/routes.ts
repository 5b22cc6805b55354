/**
 * Transactions group. Every route acts on the caller's own transactions and wallets;
 * another user's or another tenant's id answers 404.
 */
import { Elysia } from 'elysia'
import type { FeedSource, StepUpCheck } from '../../context'
import type { Deps } from '../../deps'
import { IdempotencyHeaders, idempotency, registerReplay } from '../../http/idempotency'
import { prose } from '../../http/prose'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { stepUpGuard } from '../../http/step-up'
import { lazyService } from '../../lib/lazy'
import { Broadcast, BroadcastBody, chainErrors, Created, FeedItem, FeedPage, FeeQuote, Id, ListQuery, SendBody, Transaction, TransactionPage, TransactionStatus } from './model'
import { statusView, transactionView } from './view'

/** The transaction services, with the chain libraries they use, are loaded by the first transaction request. */
const service = lazyService(() => import('./impl'))

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  createTransaction: [
    prose`
      With \`send\` in the tenant's \`passkeys.stepUp.operations\` and an \`amount\` above its
      \`amountAbove\` (or none set), a caller who has a passkey sends an approval for this body in
      \`Passkey-Approval\` (403 \`PASSKEY_APPROVAL_REQUIRED\` without it; docs/passkeys.md).`,
    prose`
      Custodial wallets (\`aes_single\`, and \`client_side_pending\` while a migration runs): the
      service signs and submits; 201 \`{ id, status: pending, txHash }\`. Repeating the call sends a
      second transaction, unless it carries the same optional \`Idempotency-Key\` (see Idempotency:
      the first answer is replayed with \`idempotency-replayed: true\` and nothing is sent again;
      every answer carries \`idempotency-replayed\`).`,
    prose`
      Custodial sends are held against the wallet's balance where they are recorded: the chain's
      balances at the latest block less every send of the wallet still pending or mined after that
      block and every bank ramp payout not yet sent (amounts, and on EVM gas × max fee in the native
      coin; a Solana balance is read at one confirmed slot). Concurrent sends (and payouts) can
      never together spend more than the wallet holds: 400 \`BlockchainError\`
      \`INSUFFICIENT_BALANCE\` with what is available, nothing recorded. With an
      \`Idempotency-Key\`, the key is bound to the send once it is recorded: a retry whose first
      answer was lost answers the send as it is now, and the key is released only when the send
      never reached a node.`,
    prose`
      Concurrent sends from one wallet get consecutive nonces (a per-wallet, per-network counter in
      the database, shared by every API process, resynchronised from the chain when the node says
      "nonce too low/high"). A send the node refuses, or that never reaches it, is recorded
      \`failed\` and its nonce is reused by the next send.`,
    prose`
      Non-custodial wallets (\`client_side\`): the service prepares the transaction (nonce from the
      chain's pending count, gas and EIP-1559 fees, or a recent blockhash on Solana) and answers
      \`requiresClientSigning: true\`, \`txHash: null\`, \`status: awaiting_signature\`,
      \`preparedTransactionId\`, and what to sign: EVM \`signingHash\` =
      keccak256(\`unsignedTransaction\`), signed raw (no EIP-191 prefix); Solana \`message\`
      (base64) signed with ed25519. Then call
      \`POST /v1/transactions/{preparedTransactionId}/broadcast\` before \`expiresAt\`
      (PREPARED_TX_TTL_SECONDS, default 600).`,
    prose`
      Sponsored (docs/gas-sponsorship.md): where the tenant's gas policy covers the send and the
      wallet cannot pay its gas, a custodial send goes as an ERC-4337 user operation the paymaster
      pays (201 \`{ status: pending, sponsored: true, userOpHash, txHash: null }\`), and an MPC wallet
      gets a prepared user operation to sign through the relay: \`sponsored: true\`,
      \`signingScheme: evm-user-operation-hash\`, \`signingHash\` = \`userOpHash\`, and with its first
      one \`authorization\` (its EIP-7702 authorization's own \`preparedTransactionId\` and
      \`signingHash\`); the operation goes to the bundler once both are signed, in either order. 409
      \`GAS_DELEGATION_PENDING\` when the wallet's first (delegating) sponsored operation is still open;
      429 \`GAS_USER_DAILY_LIMIT\`, \`GAS_TENANT_MONTHLY_BUDGET\`; 503 \`PAYMASTER_DEPOSIT_LOW\`,
      \`BUNDLER_UNAVAILABLE\`.`,
    prose`
      Errors: 400 schema (a decimal \`amount\`), unsupported chain, chain other than the wallet's,
      bad address, unknown token; 400 \`BlockchainError\` \`INSUFFICIENT_BALANCE\` (above),
      \`TRANSACTION_WOULD_FAIL\` when the node says the call would revert or funds are short,
      \`TRANSACTION_REJECTED\` when it refuses the submission; 404 unknown wallet; 503 when the RPC
      is down.`,
  ].join('\n\n'),
  quoteTransaction: 'Same body as create; nothing is stored or sent. Read from the chain. 60 per minute per IP.',
  broadcastTransaction: [
    prose`
      \`{id}\` is the \`preparedTransactionId\` (the transaction id is accepted too). Send exactly
      one of \`signature\` or \`signedTransaction\`. The signature must recover to the wallet's
      address. 20 per minute per IP. A piece of an MPC wallet's sponsored user operation (its
      \`preparedTransactionId\`, or its \`authorization.preparedTransactionId\`) takes \`signature\`
      over its \`signingHash\`: the answer is \`awaiting_signature\` until both pieces are signed,
      then \`pending\` with \`userOpHash\` (\`txHash\` null until mined), the operation sent to the
      bundler (400 \`USER_OPERATION_REJECTED\`, 503 \`BUNDLER_UNAVAILABLE\`: recorded \`failed\`, its
      sponsorship released).`,
    prose`
      Errors (\`error: BlockchainError\`, \`code\`, \`retryable\`, \`suggestedAction\`): 404
      \`PREPARED_TX_NOT_FOUND\`; 409 \`PREPARED_TX_ALREADY_USED\` (also for the loser of two
      simultaneous broadcasts); 410 \`PREPARED_TX_EXPIRED\` (gone for good: prepare a new one); 400
      \`SIGNATURE_DECODE_FAILED\` (malformed, or a signed transaction whose fields differ from the
      prepared ones); 400 \`WRONG_SIGNER\`; 400 \`TRANSACTION_REJECTED\` when the node refuses it.
      When the RPC cannot be reached the prepared transaction stays usable and the answer is 503.`,
  ].join('\n\n'),
  listTransactions: prose`
    Sends and swaps (simulated ones included), newest first. Filters: \`walletId\`, \`chain\`
    (family id), \`status\`.`,
  listAggregatedTransactions: prose`
    Sends, swaps and the bank ramp's deposits and payouts as items of one shape, newest first:
    \`{ id, kind, direction, status, chain, isTestnet, amount, token { address, symbol, decimals }, counterparty, txHash, walletId, simulation, createdAt, updatedAt }\`.
    \`id\` is prefixed by its source (\`tx:\`, \`ramp:\`). Bank ramp items are the fiat side in euro
    cents (\`token { address: null, symbol: EUR, decimals: 2 }\`): a deposit (\`in\`) to a virtual
    IBAN, with the wallet it converts to; a payout (\`out\`) to a bank account, whose crypto leg is
    a send of its own. Their \`status\` is \`pending\`, \`confirmed\` (completed) or \`failed\`;
    \`isTestnet\` is true in the sandbox.`,
  getAggregatedTransaction: prose`
    By the item \`id\` (\`tx:<uuid>\`, \`ramp:deposit:<uuid>\`, \`ramp:payout:<uuid>\`), or a bare
    transaction id.`,
  getTransactionStatus: prose`
    Reads the chain and saves any change (\`confirmations\`, \`blockNumber\`, \`blockTimestamp\`,
    status). A background job does the same with backoff (1 s doubling to 60 s) while a transaction
    is pending, so statuses settle without polling; a transaction dropped from the mempool is resent
    with a higher fee within TX_MAX_FEE_BUMP_PERCENT, or \`failed\` with \`failureReason\`. A
    non-custodial send whose prepared transaction expired unbroadcast reads \`failed\`.`,
}

/** `feedSources`: other modules' movements in the unified feed (src/services.ts). */
export function transactionRoutes(deps: Deps, stepUp: StepUpCheck, feedSources: FeedSource[] = []) {
  // a custodial send's Idempotency-Key is bound to it once recorded: a retry whose first answer was lost answers it as it is now
  registerReplay('transaction', async (ctx, id) => {
    const row = await service.ownTransaction(ctx, id).catch(() => null)
    if (!row) return null
    return {
      status: 201,
      body: { id: row.id, status: row.status, txHash: row.txHash, requiresClientSigning: row.requiresClientSigning, nonce: row.nonce, chain: row.chain, isTestnet: row.isTestnet },
    }
  })
  return new Elysia({ prefix: '/v1/transactions', detail: { tags: ['Transactions'] } })
    .use(security(deps))
    .use(stepUpGuard(deps, stepUp))
    .use(idempotency(deps))
    .post('/', async ({ body, ctx, set }) => {
      const out = await service.createTransaction(ctx, body)
      set.status = 201
      return out
    }, {
      auth: 'any',
      passkeyApproval: (body: typeof SendBody.static) => ({ operations: ['send'], amount: body.amount }),
      idempotent: true,
      headers: IdempotencyHeaders,
      body: SendBody,
      response: { 201: Created, ...errorResponses('standard', 400, 401, 403, 404, 409, 422, 501, 502, 503), ...chainErrors(400) },
      detail: {
        operationId: 'createTransaction',
        summary: 'Send native coins or tokens',
        description: descriptions.createTransaction,
      },
    })
    .post('/quote', async ({ body, ctx }) => service.quoteTransaction(ctx, body), {
      auth: 'any',
      rateLimit: { max: 60, windowSeconds: 60 },
      body: SendBody,
      response: {
        200: FeeQuote,
        ...errorResponses('standard', 400, 401, 403, 404, 429, 422, 501, 502, 503), ...chainErrors(400),
      },
      detail: { operationId: 'quoteTransaction', summary: 'Estimate gas and fee for a send', description: descriptions.quoteTransaction },
    })
    .post('/:id/broadcast', async ({ params, body, ctx }) => service.broadcastTransaction(ctx, params.id, body), {
      auth: 'any',
      rateLimit: { max: 20, windowSeconds: 60 },
      params: Id,
      body: BroadcastBody,
      response: {
        200: Broadcast,
        ...errorResponses('standard', 400, 401, 403, 404, 409, 410, 429, 422, 501, 502, 503), ...chainErrors(400, 404, 409, 410),
      },
      detail: {
        operationId: 'broadcastTransaction',
        summary: 'Submit a client-signed transaction',
        description: descriptions.broadcastTransaction,
      },
    })
    .get('/', async ({ query, ctx }) => service.listTransactions(ctx, query), {
      auth: 'any',
      query: ListQuery,
      response: { 200: TransactionPage, ...errorResponses('standard', 400, 401) },
      detail: { operationId: 'listTransactions', summary: 'One\'s transaction history', description: descriptions.listTransactions },
    })
    .get('/aggregated/', async ({ query, ctx }) => service.aggregatedFeed(ctx, query, feedSources), {
      auth: 'any',
      query: ListQuery,
      response: { 200: FeedPage, ...errorResponses('standard', 400, 401) },
      detail: {
        operationId: 'listAggregatedTransactions',
        summary: 'Unified activity feed',
        description: descriptions.listAggregatedTransactions,
      },
    })
    .get('/aggregated/:id', async ({ params, ctx }) => service.aggregatedItem(ctx, params.id, feedSources), {
      auth: 'any',
      params: Id,
      response: { 200: FeedItem, ...errorResponses('standard', 401, 404) },
      detail: { operationId: 'getAggregatedTransaction', summary: 'One item of the unified feed', description: descriptions.getAggregatedTransaction },
    })
    .get('/:id/status', async ({ params, ctx }) => statusView(await service.transactionStatus(ctx, params.id)), {
      auth: 'any',
      params: Id,
      response: { 200: TransactionStatus, ...errorResponses('standard', 401, 404, 422, 501, 502, 503) },
      detail: { operationId: 'getTransactionStatus', summary: 'Status read from the chain', description: descriptions.getTransactionStatus },
    })
    .get('/:id', async ({ params, ctx }) => transactionView(await service.ownTransaction(ctx, params.id)), {
      auth: 'any',
      params: Id,
      response: { 200: Transaction, ...errorResponses('standard', 401, 404) },
      detail: { operationId: 'getTransaction', summary: 'One transaction as stored', description: 'No chain read (use `/status` for that).' },
    })
}
