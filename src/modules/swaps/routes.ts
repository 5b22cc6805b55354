/**
 * Swaps group: quote, allowance, approve, execute, broadcast of client-signed swaps and
 * approvals, and the simulation. Every route acts on the caller's own wallets, quotes and
 * transactions; another user's or another tenant's id answers 404. Decisions: docs/swaps.md.
 */
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { IdempotencyHeaders, idempotency, registerReplay } from '../../http/idempotency'
import { prose } from '../../http/prose'
import { rejectUnknownProperties } from '../../http/request-state'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { lazyService } from '../../lib/lazy'
import { Broadcast, chainErrors } from '../transactions'
import { gaslessSwapRoutes } from './gasless-routes'
import { AllowanceBody, AllowanceView, ApproveBody, ExecuteBody, QuoteBody, SimulatedSwap, SimulateSwapBody, SwapBroadcastBody, SwapCreated, SwapQuote } from './model'

/** The swap service (it reads wallets, and so the chain libraries) loads with the first swap request. */
const service = lazyService(() => import('./impl'))

const SIGNING = prose`
  Custodial wallets: signed and submitted through the transactions module (nonce lane, balance
  holds, status job), 201 \`{ id, status: pending, txHash }\`. Non-custodial wallets: prepared, 201
  \`{ status: awaiting_signature, requiresClientSigning: true, preparedTransactionId, signingHash, unsignedTransaction, transaction, expiresAt }\`;
  sign as for \`POST /v1/transactions/\` and call the broadcast route.`
const BROADCAST = prose`
  Body: \`transactionId\` (the \`preparedTransactionId\` answered) and exactly one of \`signature\`
  or \`signedTransaction\`, as \`POST /v1/transactions/{id}/broadcast\`. Works once (409
  \`PREPARED_TX_ALREADY_USED\`, 410 \`PREPARED_TX_EXPIRED\`, 404 \`PREPARED_TX_NOT_FOUND\`). 10 per
  10 seconds per IP.`

const EXECUTE = prose`
  Sends the quote's transaction (\`quoteId\` as \`POST /v1/swap/quote\` answered it to the caller,
  within 10 minutes; 404 \`SWAP_QUOTE_NOT_FOUND\`, 400 \`SWAP_QUOTE_EXPIRED\`) from the quote's
  wallet, holding \`fromAmount\` of the source token like a send; recorded as a transaction of type
  \`swap\` (history, unified feed, status job). ${SIGNING} Repeating the call sends a second swap
  unless it carries the same \`Idempotency-Key\` (replayed with \`idempotency-replayed: true\`).
  A custodial EVM wallet whose swap goes gas-sponsored (docs/gas-sponsorship.md) and whose allowance
  to \`approvalAddress\` is short sends the approval and the swap as one user operation
  (\`executeBatch\`), with no separate approval; otherwise approve first (\`POST /v1/swap/approve\`).
  Solana sources: the aggregator's base64 versioned transaction, signed with a custodial Solana
  wallet's key and sent (201 \`{ id, status: pending, txHash }\`), or for a non-custodial Solana
  wallet prepared (201
  \`{ status: awaiting_signature, requiresClientSigning: true, preparedTransactionId, message, signingScheme: solana-ed25519-message, expiresAt, lastValidBlockHeight }\`:
  sign \`message\`, the versioned message's bytes, with ed25519 and call \`POST /v1/swap/broadcast\`
  before the blockhash expires). \`execute\` and \`execute-solana\` are one operation: an
  \`Idempotency-Key\` sent to either is the same key (docs/swaps.md).`

/** execute and its alias execute-solana: one contract, two operation ids */
const executeOptions = (operationId: string, summary: string, prefix: string) => ({
  auth: 'any' as const,
  // one operation under two paths: a key sent to either is the same key
  idempotent: { endpoint: 'POST /v1/swap/execute' },
  headers: IdempotencyHeaders,
  body: ExecuteBody,
  response: { 201: SwapCreated, ...errorResponses('standard', 400, 401, 403, 404, 409, 503), ...chainErrors(400) },
  detail: { operationId, summary, description: `${prefix}${EXECUTE}` },
})

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  quoteSwap: prose`
    The aggregator's quote for the pair (spec rules 1 to 4): tokens from the registry (the zero
    address is an EVM native coin; both native SOL forms), the receiver without \`toAddress\` (same
    chain: the source wallet; cross-chain: the primary wallet on \`toChain\`, an EVM fallback, or
    the user's Solana wallet, created during the call when none exists), \`slippage\` in percent
    divided by 100. Testnets: \`isTestnet: true\` quotes the wallet's testnet (its registry
    tokens, its chain ids) only where the aggregator supports those testnet chain ids, and answers
    400 otherwise. The supported testnet chain ids are the aggregator's: LI.FI supports none, so
    a deployment quoting through LI.FI answers 400 to every testnet quote; the sandbox aggregator
    (the devnet, docs/sandbox.md) supports \`gnosis-chiado\` (10200), where the devnet's wallets
    are test-network wallets (\`isTestnet: true\`). Routes delivering another token or needing a
    destination signature are refused. \`needsApproval\` only when the allowance is exactly 0.
    Errors: 400 \`Unsupported chain: <chain>\`, \`Token not found: ...\`, \`Network mismatch: ...\`
    (the wallet's network is not the quote's: its chain, or mainnet against \`isTestnet\`),
    \`Swaps on testnets are not supported...\` (a testnet chain id the aggregator does not support),
    no route (\`SWAP_NO_ROUTE\`), the generic unable-to-quote message (\`SWAP_QUOTE_REFUSED\`),
    \`SWAP_NO_DIRECT_ROUTE\`, \`SWAP_NEEDS_DESTINATION_SIGNATURE\`,
    \`Failed to check token allowance\`; 404 \`Wallet not found\`, no primary wallet for the
    destination; 503 \`SWAP_AGGREGATOR_UNAVAILABLE\` when the aggregator is slow, down or
    unreadable. Aggregator failures answer fixed text of ours; the aggregator's own words are
    logged, never answered. The quote is kept 10 minutes for execute.`,
  checkSwapAllowance: prose`
    The wallet's allowance of \`tokenAddress\` to \`spenderAddress\`, read from the wallet's
    network. \`needsApproval\`: with \`amount\`, allowance < amount; without, allowance is exactly
    0.`,
  approveSwapToken: prose`
    ERC-20 \`approve(spenderAddress, amount)\` (integer string) from the wallet, recorded as a
    transaction of type \`approval\`. ${SIGNING}`,
  simulateSwap: prose`
    No aggregator call and no chain call: writes a \`confirmed\` swap record (\`simulation: true\`)
    that appears in \`GET /v1/transactions/\` and the aggregated feed. Any authenticated user,
    mainnet or testnet. 404 \`Wallet not found\` for a wallet that is not the caller's.`,
}

export function swapRoutes(deps: Deps) {
  // an executed swap's Idempotency-Key is bound to it once recorded: a retry whose first answer was lost answers it as it is now
  registerReplay('swap', (ctx, id) => service.swapState(ctx, id))
  return new Elysia({ prefix: '/v1/swap', detail: { tags: ['Swaps'] } })
    .use(security(deps))
    .use(idempotency(deps))
    .use(gaslessSwapRoutes(deps))
    .post('/quote', async ({ body, ctx, request }) => {
      // the spec: no other properties in the body (Elysia would drop them silently)
      rejectUnknownProperties(QuoteBody, request)
      return service.quoteSwap(ctx, body)
    }, {
      auth: 'any',
      body: QuoteBody,
      response: { 200: SwapQuote, ...errorResponses('standard', 400, 401, 403, 404, 503) },
      detail: {
        operationId: 'quoteSwap',
        summary: 'Quote a swap',
        description: descriptions.quoteSwap,
      },
    })
    .post('/check-allowance', async ({ body, ctx }) => service.checkAllowance(ctx, body), {
      auth: 'any',
      body: AllowanceBody,
      response: { 200: AllowanceView, ...errorResponses('standard', 400, 401, 403, 404, 503) },
      detail: { operationId: 'checkSwapAllowance', summary: 'Read an ERC-20 allowance', description: descriptions.checkSwapAllowance },
    })
    .post('/approve', async ({ body, ctx, set }) => {
      const out = await service.approve(ctx, body)
      set.status = 201
      return out
    }, {
      auth: 'any',
      body: ApproveBody,
      response: { 201: SwapCreated, ...errorResponses('standard', 400, 401, 403, 404, 409, 503), ...chainErrors(400) },
      detail: { operationId: 'approveSwapToken', summary: 'Approve a spender for a swap', description: descriptions.approveSwapToken },
    })
    .post('/broadcast-approve', async ({ body, ctx }) => service.broadcastSwap(ctx, body, ['approval']), {
      auth: 'any',
      rateLimit: { max: 10, windowSeconds: 10 },
      body: SwapBroadcastBody,
      response: { 200: Broadcast, ...errorResponses('standard', 400, 401, 403, 404, 409, 410, 429, 503), ...chainErrors(400, 404, 409, 410) },
      detail: { operationId: 'broadcastSwapApproval', summary: 'Broadcast a client-signed approval', description: BROADCAST },
    })
    .post('/execute', async ({ body, ctx, set }) => {
      const out = await service.executeSwap(ctx, body)
      set.status = 201
      return out
    }, executeOptions('executeSwap', 'Execute a quoted swap', ''))
    // the catalogue's alias of execute: the same body, behaviour and answers (its own Idempotency-Key scope)
    .post('/execute-solana', async ({ body, ctx, set }) => {
      const out = await service.executeSwap(ctx, body)
      set.status = 201
      return out
    }, executeOptions(
      'executeSwapSolana',
      'Execute a quoted swap (alias of execute)',
      'The catalogue\'s alias of `POST /v1/swap/execute`: the same body, behaviour and answers. A key sent here is its own: it is not shared with execute. ',
    ))
    .post('/broadcast', async ({ body, ctx }) => service.broadcastSwap(ctx, body, ['swap', 'approval']), {
      auth: 'any',
      rateLimit: { max: 10, windowSeconds: 10 },
      body: SwapBroadcastBody,
      response: { 200: Broadcast, ...errorResponses('standard', 400, 401, 403, 404, 409, 410, 429, 503), ...chainErrors(400, 404, 409, 410) },
      detail: { operationId: 'broadcastSwap', summary: 'Broadcast a client-signed swap', description: `A swap (or approval) prepared by execute (or approve). ${BROADCAST}` },
    })
    .post('/simulate', async ({ body, ctx }) => service.simulateSwap(ctx, body), {
      auth: 'any',
      body: SimulateSwapBody,
      response: {
        200: SimulatedSwap,
        ...errorResponses('standard', 400, 401, 403, 404),
      },
      detail: {
        operationId: 'simulateSwap',
        summary: 'Record a simulated swap',
        description: descriptions.simulateSwap,
      },
    })
}
