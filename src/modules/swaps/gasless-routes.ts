/**
 * Gasless swap routes (docs/swaps.md "Gasless swaps"): sign-permit, execute-gasless,
 * broadcast-gasless, mounted under /v1/swap by routes.ts. A deployment without gasless swaps
 * answers 400 SWAP_GASLESS_DISABLED; another user's or tenant's quote 404.
 */
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { IdempotencyHeaders, idempotency } from '../../http/idempotency'
import { prose } from '../../http/prose'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { lazyService } from '../../lib/lazy'
import { chainErrors } from '../transactions'
import { BroadcastGaslessBody, GaslessCreated, GaslessQuoteBody, PermitTypedData } from './gasless-model'

const service = lazyService(() => import('./gasless'))

const RELAYED = prose`
  The deployment's relayer submits the router's \`swapWithPermit\` (the permit and the swap in one
  transaction), pays the gas and is repaid \`relayerFee\` of the stablecoin; the wallet receives at
  least \`minAmountOut\` of xDAI. Recorded in the wallet's history as a transaction of type \`swap\`
  (\`metadata.gasless\`, \`fromAddress\` the relayer), followed by the status job. 201
  \`{ id, status: pending, txHash, relayer, relayerFee, minAmountOut }\`. The relayer's bounds,
  checked before any gas is spent: a quote is relayed once, and so is a permit (the wallet's permit
  nonce for the token, whichever quote carries it): a copy sent while one is in flight or done
  answers 409 \`SWAP_GASLESS_ALREADY_RELAYED\` (a relay whose transaction failed frees them); the
  swap is simulated first (eth_call from the relayer) and one that would revert answers 400
  \`SWAP_GASLESS_SIMULATION_FAILED\`; the relayer's gas is budgeted per UTC day per tenant and per
  user (SWAP_GASLESS_DAILY_GAS_PER_TENANT_WEI, SWAP_GASLESS_DAILY_GAS_PER_USER_WEI), 429
  \`SWAP_GASLESS_TENANT_DAILY_LIMIT\` / \`SWAP_GASLESS_USER_DAILY_LIMIT\` with \`retry-after\` until
  00:00 UTC, so one tenant cannot spend what the relayer holds for the others. Errors: 404
  \`SWAP_QUOTE_NOT_FOUND\` (another user's or tenant's quote too); 400 \`SWAP_GASLESS_DISABLED\`,
  \`SWAP_GASLESS_NOT_ELIGIBLE\`, \`SWAP_QUOTE_EXPIRED\`, \`SWAP_GASLESS_AMOUNT_TOO_SMALL\`,
  \`SWAP_GASLESS_SIMULATION_FAILED\`, \`INSUFFICIENT_BALANCE\`, \`TRANSACTION_WOULD_FAIL\`; 409
  \`SWAP_GASLESS_ALREADY_RELAYED\`; 429 the daily budgets; 503 \`SWAP_RELAYER_LOW_GAS\` when the
  relayer cannot pay the gas (nothing is sent). With an \`Idempotency-Key\`, a retry answers the
  first request's swap instead of the 409.`
/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  signSwapPermit: prose`
    For a quote of a euro stablecoin to xDAI on gnosis that answered a \`gasless\` block: the
    EIP-2612 permit as EIP-712 typed data (\`permitDomain\`; owner the wallet, spender the router,
    value the quote's \`fromAmount\`, nonce the token's \`nonces(owner)\`, deadline the quote's
    expiry), with the relayer's fee and the least xDAI received. Sign it with the wallet key
    (eth_signTypedData_v4) and send the signature to \`POST /v1/swap/broadcast-gasless\`; custodial
    wallets call \`POST /v1/swap/execute-gasless\` instead. Errors as execute-gasless.`,
  executeSwapGasless: prose`
    The permit of \`POST /v1/swap/sign-permit\` signed with the custodial wallet's key (a wallet
    that signs on the client answers 400 \`SWAP_GASLESS_CLIENT_SIGNS\`). ${RELAYED}`,
  broadcastSwapGasless: prose`
    \`signature\`: the wallet's signature of the typed data \`POST /v1/swap/sign-permit\` answered
    for the quote (400 \`SWAP_PERMIT_SIGNATURE_INVALID\` when it is not the wallet's for that
    permit). ${RELAYED} 10 per 10 seconds per IP.`,
}

export function gaslessSwapRoutes(deps: Deps) {
  return new Elysia({ name: 'swaps-gasless', detail: { tags: ['Swaps'] } })
    .use(security(deps))
    .use(idempotency(deps))
    .post('/sign-permit', async ({ body, ctx }) => service.signPermit(ctx, body), {
      auth: 'any',
      body: GaslessQuoteBody,
      response: { 200: PermitTypedData, ...errorResponses('standard', 400, 401, 403, 404, 503) },
      detail: {
        operationId: 'signSwapPermit',
        summary: 'The permit to sign for a gasless swap',
        description: descriptions.signSwapPermit,
      },
    })
    .post('/execute-gasless', async ({ body, ctx, set }) => {
      const out = await service.executeGasless(ctx, body)
      set.status = 201
      return out
    }, {
      auth: 'any',
      idempotent: true,
      headers: IdempotencyHeaders,
      body: GaslessQuoteBody,
      response: { 201: GaslessCreated, ...errorResponses('standard', 400, 401, 403, 404, 409, 429, 503), ...chainErrors(400) },
      detail: {
        operationId: 'executeSwapGasless',
        summary: 'Execute a gasless swap (custodial wallet)',
        description: descriptions.executeSwapGasless,
      },
    })
    .post('/broadcast-gasless', async ({ body, ctx, set }) => {
      const out = await service.broadcastGasless(ctx, body)
      set.status = 201
      return out
    }, {
      auth: 'any',
      idempotent: true,
      rateLimit: { max: 10, windowSeconds: 10 },
      headers: IdempotencyHeaders,
      body: BroadcastGaslessBody,
      response: { 201: GaslessCreated, ...errorResponses('standard', 400, 401, 403, 404, 409, 429, 503), ...chainErrors(400) },
      detail: {
        operationId: 'broadcastSwapGasless',
        summary: 'Relay a client-signed gasless swap',
        description: descriptions.broadcastSwapGasless,
      },
    })
}
