/**
 * `GET /v1/portfolio/performance` (the spec's catalogue; its money fields are fixed there as
 * JSON numbers, its limit at 20 per minute). Decisions in docs/portfolio.md.
 */
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { lazyService } from '../../lib/lazy'
import type { BalanceCache } from '../wallets'
import * as M from './model'

const service = lazyService(() => import('./service'))

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  portfolioPerformance: [
    prose`
      The caller's mainnet wallets (testnet coins are worth nothing): their balances read now from
      their networks, valued at the current prices of the price provider; and the daily snapshots
      the worker records at 00:00 UTC, each valued at the prices of its day.`,
    prose`
      \`period\` (\`24h\`, \`7d\`, \`30d\`, \`90d\`, \`1y\`; default \`7d\`) ends now; the change is
      measured from the last snapshot at or before its start (\`baselineAt\`), or from the first
      snapshot when the history is shorter (\`historyComplete: false\`). Any other \`period\`
      answers 400.`,
    prose`
      \`totalEur\`, \`totalUsd\` and \`changeEur\` are JSON numbers, rounded to the cent, because
      the spec fixes them so; the points' amounts are decimal text rounded to the cent, without
      trailing zeros (\`"1234.5"\`).`,
    prose`
      Never a 5xx for a partner: when the price provider is down the last known prices answer
      (\`prices.asOf\`, \`prices.ageSeconds\`), and a wallet whose network cannot be read counts
      with its last snapshot (\`wallets.fromSnapshot\`); either marks the answer \`stale\`. Tokens
      with no price (a tenant's own tokens) are listed in \`unpriced\` and left out of the totals.
      Stablecoins are priced by the provider like any coin, never assumed at 1.`,
    'Platform admins have no wallets: 403. Rate limit: 20 per minute per client IP.',
  ].join(' '),
}

/** `balances` is the app's balance cache (made in src/services.ts), shared with the wallets' balance routes. */
export function portfolioRoutes(deps: Deps, balances: BalanceCache) {
  return new Elysia({ prefix: '/v1/portfolio', detail: { tags: ['Portfolio'] } })
    .use(security(deps))
    .get('/performance', ({ ctx, query }) => service.performance(ctx, query, balances), {
      auth: 'any',
      rateLimit: { max: 20, windowSeconds: 60 },
      query: M.PerformanceQuery,
      response: { 200: M.Performance, ...errorResponses('standard', 400, 401, 403, 429) },
      detail: {
        operationId: 'portfolioPerformance',
        summary: 'The value of the caller\'s wallets now and its change over a period, in EUR and USD',
        description: descriptions.portfolioPerformance,
      },
    })
}
