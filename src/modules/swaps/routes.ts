/** Swaps group: `POST /v1/swap/simulate` for now. */
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { lazy } from '../../lib/lazy'

/** The swap service (it reads wallets, and so the chain libraries) loads with the first swap request. */
const service = lazy(() => import('./service'))

export function swapRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/swap', detail: { tags: ['Swaps'] } })
    .use(security(deps))
    .post('/simulate', async ({ body, ctx }) => (await service()).simulateSwap(ctx, body), {
      auth: 'any',
      body: t.Object({
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
      }),
      response: {
        200: t.Object({
          transactionId: t.String(),
          quoteId: t.String({ description: 'starts with `sim_`' }),
          txHash: t.String({ description: 'starts with `SIMULATED`' }),
          status: t.Literal('confirmed'),
          fromAmount: t.String(),
          toAmount: t.String({ description: 'equal to `fromAmount`' }),
          simulation: t.Literal(true),
          createdAt: t.String({ format: 'date-time' }),
        }, { title: 'SimulatedSwap' }),
        ...errorResponses('standard', 400, 401, 403, 404),
      },
      detail: {
        operationId: 'simulateSwap',
        summary: 'Record a simulated swap',
        description: 'No aggregator call and no chain call: writes a `confirmed` swap record (`simulation: true`) that appears in `GET /v1/transactions/` and the aggregated feed. Any authenticated user, mainnet or testnet. 404 `Wallet not found` for a wallet that is not the caller\'s.',
      },
    })
}
