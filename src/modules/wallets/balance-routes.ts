/** Balances read from the chain: one wallet's, and all of the caller's summed. */
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import type { BalanceCache } from './balance-cache'
import { wallets } from './handle'
import { AggregateBalances, Balance, WalletId } from './model'

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  aggregateBalances: prose`
    Sums per chain and network; \`total\` sums mainnet amounts per token symbol (testnet coins have
    no value). A network that cannot be read is listed in \`unavailable\`; 503 only when none can be
    read.`,
  getWalletBalance: prose`
    Read from the chain (cached 15 seconds). 503 \`ServiceUnavailableError\` when the network's RPC
    cannot be reached.`,
}

/** `balances` is the app's balance cache (made in src/services.ts). */
export function balanceRoutes(deps: Deps, balances: BalanceCache) {
  return new Elysia({ prefix: '/v1/wallets', detail: { tags: ['Wallets'] } })
    .use(security(deps))
    .get('/balances/aggregate', async ({ ctx }) => wallets.aggregateBalances(ctx, balances), {
      auth: 'any',
      response: { 200: AggregateBalances, ...errorResponses('standard', 401, 403, 422, 501, 502, 503) },
      detail: {
        operationId: 'aggregateBalances',
        summary: 'Balances of all one\'s wallets, per chain and in total',
        description: descriptions.aggregateBalances,
      },
    })
    .get('/:id/balance', async ({ params, ctx }) => wallets.walletBalance(ctx, params.id, balances), {
      auth: 'any',
      params: WalletId,
      response: { 200: Balance, ...errorResponses('standard', 401, 404, 422, 501, 502, 503) },
      detail: { operationId: 'getWalletBalance', summary: 'Native and token balances of a wallet', description: descriptions.getWalletBalance },
    })
}
