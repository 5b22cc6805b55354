/** Swaps group: `POST /v1/swap/simulate` for now. */
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { lazyService } from '../../lib/lazy'
import { SimulatedSwap, SimulateSwapBody } from './model'

/** The swap service (it reads wallets, and so the chain libraries) loads with the first swap request. */
const service = lazyService(() => import('./service'))

export function swapRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/swap', detail: { tags: ['Swaps'] } })
    .use(security(deps))
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
        description: 'No aggregator call and no chain call: writes a `confirmed` swap record (`simulation: true`) that appears in `GET /v1/transactions/` and the aggregated feed. Any authenticated user, mainnet or testnet. 404 `Wallet not found` for a wallet that is not the caller\'s.',
      },
    })
}
