/**
 * `POST /v1/sandbox/faucet`: gas and test stablecoin for the caller's sandbox wallet. Mounted
 * only where sandboxes run (src/sandbox/policy.ts: never under NODE_ENV=production without
 * SANDBOX_IN_PRODUCTION=true).
 */
import { Elysia, t } from 'elysia'
import type { Faucet } from '../../adapters/chain/faucet'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { lazyService } from '../../lib/lazy'
import { GAS_TARGET_WEI } from './limits'

/** The service, with the wallet code and chain libraries it uses, loads with the first faucet request. */
const service = lazyService(() => import('./service'))

const Funded = t.Object({
  walletId: t.String(),
  address: t.String(),
  network: t.String({ description: 'registry id of the faucet\'s network (`sepolia` on the devnet)' }),
  native: t.Union(
    [t.Object({ amount: t.String({ description: 'wei sent, integer string' }), txHash: t.String() }), t.Null()],
    { description: 'null: the wallet already had the gas the faucet tops up to' },
  ),
  stablecoin: t.Union([t.Object({ tokenAddress: t.String(), symbol: t.String(), amount: t.String({ description: 'smallest unit, integer string' }), txHash: t.String() }), t.Null()]),
}, { title: 'FaucetFunding' })

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  sandboxFaucet: prose`
    Bearer; the caller's own custodial or client wallet on the faucet's EVM testnet (\`sepolia\`
    with \`npm run devnet\`). Tops the native balance up to ${GAS_TARGET_WEI} wei (0.05 of the
    coin), so sends and payouts never fail for want of gas, and with \`stablecoin\` mints that much
    of the devnet's test USDC to it. Served only where sandboxes run: never under
    NODE_ENV=production without SANDBOX_IN_PRODUCTION=true. 503 \`SANDBOX_FAUCET_NOT_CONFIGURED\`
    until \`npm run devnet\` has set SANDBOX_FAUCET_RPC_URL and SANDBOX_FAUCET_PRIVATE_KEY; 503
    \`SANDBOX_FAUCET_UNAVAILABLE\` when its chain does not answer; 400 \`SANDBOX_FAUCET_NETWORK\`
    for a wallet on another network. 10 requests a minute.`,
}

export function faucetRoutes(deps: Deps, faucet: Faucet | undefined) {
  return new Elysia({ prefix: '/v1/sandbox', detail: { tags: ['Sandbox'] } })
    .use(security(deps))
    .post('/faucet', ({ body, ctx }) => service.fundWallet(ctx, faucet, body), {
      auth: 'any',
      rateLimit: { max: 10, windowSeconds: 60 },
      body: t.Object({
        walletId: t.String({ format: 'uuid' }),
        stablecoin: t.Optional(t.String({
          pattern: '^[0-9]{1,12}$',
          description: 'USDC to mint to the wallet too, in the smallest unit (6 decimals), at most 10000000000; the devnet\'s test token only',
        })),
      }, { examples: [{ walletId: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f', stablecoin: '100000000' }] }),
      response: { 200: Funded, ...errorResponses('standard', 400, 401, 403, 404, 429, 503) },
      detail: {
        operationId: 'sandboxFaucet',
        summary: 'Gas and test stablecoin for a sandbox wallet',
        description: descriptions.sandboxFaucet,
      },
    })
}
