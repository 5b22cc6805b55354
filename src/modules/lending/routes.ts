/**
 * The lending group (`{lending}` = `aave`, docs/lending.md): positions, supply-rate history,
 * supply and withdraw from custodial wallets, prepare-supply / prepare-withdraw for wallets
 * that sign on the client, and their broadcast. Every route needs BOTH the tenant signature
 * and the bearer token (the spec's credentials table), and the bearer's user must belong to
 * the signing tenant (the `signedUser` route option). Every route acts on the caller's own wallets and transactions; another
 * user's or another tenant's id answers 404.
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
import { LendingBroadcastBody, Positions, PositionsQuery, PreparedStep, RateHistory, RateHistoryQuery, SupplyBody, SupplySent, WithdrawBody, WithdrawSent } from './model'

/** The lending service (it reads wallets, and so the chain libraries) loads with the first lending request. */
const service = lazyService(() => import('./impl'))

const CREDENTIALS = 'Needs the tenant signature (`x-tenant-api-key`, `x-timestamp`, `x-signature`) and the bearer token of a user of that tenant (401 otherwise).'
const RATE = '5 per minute per client IP.'
const SENT = prose`
  Sent from a custodial wallet through the transactions module (nonce lane, balance holds, status
  job); recorded in \`GET /v1/transactions/\` and the unified feed. A wallet that signs on the
  client answers 400 \`AAVE_CLIENT_SIGNED_WALLET\` (use the prepare routes).`
const PREPARED = prose`
  For a wallet that signs on the client (a custodial wallet answers 400 \`AAVE_CUSTODIAL_WALLET\`):
  the transaction prepared as \`POST /v1/transactions/\` prepares one (sign \`signingHash\`, or the
  whole \`transaction\`), then \`POST /v1/aave/broadcast\`.`
const ERRORS = prose`
  Errors: 400 \`AAVE_NETWORK_UNSUPPORTED\` (no pool on the wallet's network),
  \`AAVE_RESERVE_NOT_LISTED\`, \`Token not found\` (not an active token of the tenant),
  \`INSUFFICIENT_BALANCE\`; 404 \`Wallet not found\`; 503 when the network cannot be reached.`

/** both credentials, and the bearer's user a user of the signing tenant (http/security.ts) */
const both = { signedUser: true } as const
/** supply and withdraw: both credentials, an optional Idempotency-Key, 5 per minute per IP */
const write = { ...both, idempotent: true, rateLimit: { max: 5, windowSeconds: 60 }, headers: IdempotencyHeaders } as const
const writeErrors = { ...errorResponses('standard', 400, 401, 403, 404, 409, 422, 429, 501, 502, 503), ...chainErrors(400) }

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  listAavePositions: prose`
    Per EVM wallet on a network with an Aave v3 pool: the pool's \`getUserAccountData\` (base
    currency amounts, health factor) and, for each of the tenant's active tokens that the pool lists
    and the wallet has supplied, the aToken (from \`getReserveData\`), its balance and the supply
    rate (\`currentLiquidityRate\` in ray, as APR and APY decimal text). \`walletId\` reads one
    wallet (400 \`AAVE_NETWORK_UNSUPPORTED\` when its network has no pool). Each reserve read is
    also a rate-history sample. ${CREDENTIALS}`,
  getAaveRateHistory: prose`
    The reserve's current supply rate, read now, and the samples recorded for the tenant (oldest
    first): a sample is recorded whenever a lending route reads the reserve, at most one per
    \`AAVE_RATE_SAMPLE_SECONDS\` (default 3600), and a background job keeps sampling every reserve
    read in the last 30 days once per interval. There is no history from before a reserve was first
    read. ${CREDENTIALS}`,
  supplyAave: prose`
    \`Pool.supply(asset, amount, wallet, 0)\`. When the wallet's allowance to the pool is below
    \`amount\`, an ERC-20 \`approve(pool, amount)\` is sent first (answered as \`approval\`,
    recorded as a transaction of type \`approval\`), and the supply right after it with a fixed gas
    limit of 350,000 (it cannot be estimated before the approval is mined). The supplied amount and
    the gas are held like a send's. ${SENT} Repeating the call supplies again unless it carries the
    same \`Idempotency-Key\`. ${ERRORS} ${CREDENTIALS} ${RATE}`,
  withdrawAave: prose`
    \`Pool.withdraw(asset, amount, wallet)\` back to the wallet; 400 \`AAVE_INSUFFICIENT_SUPPLY\`
    when the wallet's aToken balance is below \`amount\`. Recorded as a transaction of type
    \`withdraw\` whose \`amount\` is 0 (nothing of the wallet's is spent; only the gas is held) and
    \`metadata.amount\` the withdrawal. ${SENT} Same \`Idempotency-Key\` rules as supply. ${ERRORS}
    ${CREDENTIALS} ${RATE}`,
  prepareAaveSupply: prose`
    The approval first when needed: while the wallet's allowance to the pool is below \`amount\`,
    answers a prepared \`approve(pool, amount)\` (\`type: approval\`,
    \`nextStep: broadcast_then_prepare_again\`); once it is confirmed, the same call answers the
    prepared supply (\`type: supply\`, \`nextStep: broadcast\`). ${PREPARED} ${ERRORS}
    ${CREDENTIALS} ${RATE}`,
  prepareAaveWithdraw: prose`
    A prepared \`Pool.withdraw(asset, amount, wallet)\` (400 \`AAVE_INSUFFICIENT_SUPPLY\` above the
    aToken balance). ${PREPARED} ${ERRORS} ${CREDENTIALS} ${RATE}`,
  broadcastAave: prose`
    A transaction prepare-supply or prepare-withdraw prepared (an approval, supply or withdraw;
    other prepared transactions answer 404 \`PREPARED_TX_NOT_FOUND\`). Body: \`transactionId\` (the
    \`preparedTransactionId\` answered) and exactly one of \`signature\` or \`signedTransaction\`,
    as \`POST /v1/transactions/{id}/broadcast\`. Works once (409 \`PREPARED_TX_ALREADY_USED\`, 410
    \`PREPARED_TX_EXPIRED\`). ${CREDENTIALS} ${RATE}`,
}

export function lendingRoutes(deps: Deps) {
  // a supply's or withdraw's Idempotency-Key is bound to what it sent (an approval included): a retry whose first answer was lost answers it as it is now
  registerReplay('aave_supply', (ctx, id, body) => service.lendingState(ctx, 'supply', id, body as SupplyBody))
  registerReplay('aave_withdraw', (ctx, id, body) => service.lendingState(ctx, 'withdraw', id, body as WithdrawBody))
  return new Elysia({ prefix: '/v1/aave', detail: { tags: ['Lending (Aave)'] } })
    .use(security(deps))
    .use(idempotency(deps))
    .get('/positions', async ({ query, ctx }) => {
      return service.positions(ctx, query)
    }, {
      ...both,
      query: PositionsQuery,
      response: { 200: Positions, ...errorResponses('standard', 400, 401, 403, 404, 422, 501, 502, 503) },
      detail: {
        operationId: 'listAavePositions',
        summary: 'Aave positions of the caller\'s wallets',
        description: descriptions.listAavePositions,
      },
    })
    .get('/rate-history', async ({ query, ctx }) => {
      return service.rateHistory(ctx, query)
    }, {
      ...both,
      query: RateHistoryQuery,
      response: { 200: RateHistory, ...errorResponses('standard', 400, 401, 403, 422, 501, 502, 503) },
      detail: {
        operationId: 'getAaveRateHistory',
        summary: 'Supply-rate history of an Aave reserve',
        description: descriptions.getAaveRateHistory,
      },
    })
    .post('/supply', async ({ body, ctx, request, set }) => {
      rejectUnknownProperties(SupplyBody, request)
      const out = await service.supply(ctx, body)
      set.status = 201
      return out
    }, {
      ...write,
      body: SupplyBody,
      response: { 201: SupplySent, ...writeErrors },
      detail: {
        operationId: 'supplyAave',
        summary: 'Supply a token to Aave',
        description: descriptions.supplyAave,
      },
    })
    .post('/withdraw', async ({ body, ctx, request, set }) => {
      rejectUnknownProperties(WithdrawBody, request)
      const out = await service.withdraw(ctx, body)
      set.status = 201
      return out
    }, {
      ...write,
      body: WithdrawBody,
      response: { 201: WithdrawSent, ...writeErrors },
      detail: {
        operationId: 'withdrawAave',
        summary: 'Withdraw a token from Aave',
        description: descriptions.withdrawAave,
      },
    })
    .post('/prepare-supply', async ({ body, ctx, request, set }) => {
      rejectUnknownProperties(SupplyBody, request)
      const out = await service.prepareSupply(ctx, body)
      set.status = 201
      return out
    }, {
      ...both,
      rateLimit: { max: 5, windowSeconds: 60 },
      body: SupplyBody,
      response: { 201: PreparedStep, ...writeErrors },
      detail: {
        operationId: 'prepareAaveSupply',
        summary: 'Prepare a supply for client signing',
        description: descriptions.prepareAaveSupply,
      },
    })
    .post('/prepare-withdraw', async ({ body, ctx, request, set }) => {
      rejectUnknownProperties(WithdrawBody, request)
      const out = await service.prepareWithdraw(ctx, body)
      set.status = 201
      return out
    }, {
      ...both,
      rateLimit: { max: 5, windowSeconds: 60 },
      body: WithdrawBody,
      response: { 201: PreparedStep, ...writeErrors },
      detail: {
        operationId: 'prepareAaveWithdraw',
        summary: 'Prepare a withdrawal for client signing',
        description: descriptions.prepareAaveWithdraw,
      },
    })
    .post('/broadcast', async ({ body, ctx, request }) => {
      rejectUnknownProperties(LendingBroadcastBody, request)
      return service.broadcastLending(ctx, body)
    }, {
      ...both,
      rateLimit: { max: 5, windowSeconds: 60 },
      body: LendingBroadcastBody,
      response: { 200: Broadcast, ...errorResponses('standard', 400, 401, 403, 404, 409, 410, 429, 503), ...chainErrors(400, 404, 409, 410) },
      detail: {
        operationId: 'broadcastAave',
        summary: 'Broadcast a client-signed lending transaction',
        description: descriptions.broadcastAave,
      },
    })
}
