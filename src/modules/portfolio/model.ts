/** Request and response shapes of `GET /v1/portfolio/performance` (docs/portfolio.md). */
import { t, type Static } from 'elysia'
import { integer } from '../../http/integer'
import { prose } from '../../http/prose'

export const PERIODS = ['24h', '7d', '30d', '90d', '1y'] as const
export type Period = (typeof PERIODS)[number]
export const DEFAULT_PERIOD: Period = '7d'

const periodOf = (description: string, extra: Record<string, unknown> = {}) =>
  t.Union([t.Literal('24h'), t.Literal('7d'), t.Literal('30d'), t.Literal('90d'), t.Literal('1y')], { description, ...extra })
const Period = periodOf('`24h`, `7d`, `30d`, `90d` or `1y` (365 days), ending now', { examples: ['7d'] })

export const PerformanceQuery = t.Object({
  period: t.Optional(periodOf(
    `the period the change is measured over, ending now: \`24h\`, \`7d\`, \`30d\`, \`90d\` or \`1y\` (365 days); default \`${DEFAULT_PERIOD}\`. Anything else answers 400.`,
    { default: DEFAULT_PERIOD },
  )),
})

const Fiat = (what: string) => t.String({
  pattern: '^-?(0|[1-9][0-9]*)(\\.[0-9]?[1-9])?$',
  description: `${what}: decimal text rounded to the cent, without trailing zeros (\`1234.5\`)`,
  examples: ['1234.56'],
})
const Instant = (what: string) => t.String({ format: 'date-time', description: what })
const NullableInstant = (what: string) => t.Union([t.String({ format: 'date-time' }), t.Null()], { description: what })

export const Point = t.Object({
  at: Instant('when the balances were recorded (the daily snapshots), or now for the last point'),
  totalEur: Fiat('the wallets\' value in EUR then, at the prices of then'),
  totalUsd: Fiat('the same in USD'),
}, { title: 'PortfolioPoint' })

export const Performance = t.Object({
  period: Period,
  from: Instant('the start of the period: now less the period'),
  to: Instant('now'),
  totalEur: t.Number({
    description: prose`
      JSON number (the spec fixes it so): the value of the caller's mainnet wallets now in EUR, at
      the current prices, rounded to the cent. Testnet wallets are worth nothing and left out.`,
    examples: [1234.56],
  }),
  totalUsd: t.Number({ description: 'JSON number (the spec fixes it so): the same in USD, rounded to the cent', examples: [1333.32] }),
  changeEur: t.Number({
    description: prose`
      JSON number (the spec fixes it so): \`totalEur\` less the value the period starts from
      (\`baselineAt\`), rounded to the cent; 0 when no day was recorded yet`,
    examples: [84.31],
  }),
  changePercent: t.Union([t.Number(), t.Null()], {
    description: prose`
      \`changeEur\` over the starting value, in percent with 2 decimals; null when there is none to
      compare with (no history, or it was worth 0)`,
    examples: [7.33],
  }),
  baselineAt: NullableInstant(prose`
    when the value the change is measured from was recorded: the last daily snapshot at or before
    \`from\`, or, when the history is shorter than the period, its first snapshot; null when none
    was recorded`),
  historyComplete: t.Boolean({ description: 'true when a snapshot at or before `from` exists, so the change covers the whole period' }),
  points: t.Array(Point, {
    description: prose`
      the value over the period, oldest first: the starting snapshot, every daily snapshot after it,
      and now. A snapshot is valued at the prices of its day; now at the current ones`,
  }),
  prices: t.Object({
    asOf: NullableInstant('when the oldest price used for the current value was current; null when no price was needed'),
    ageSeconds: t.Union([integer({ minimum: 0 }), t.Null()], {
      description: prose`
        how old that price is, in seconds. When the price provider cannot be reached the last known
        prices are used, and this says how old they are`,
    }),
  }, { description: 'the prices behind `totalEur` and `totalUsd`' }),
  wallets: t.Object({
    count: integer({ description: 'the caller\'s mainnet wallets' }),
    readNow: integer({ description: 'wallets whose balances were read from their network for this answer (kept 15 seconds)' }),
    fromSnapshot: integer({ description: 'wallets whose network could not be read: their last recorded balances count instead' }),
    unavailable: integer({ description: 'wallets whose network could not be read and that have no snapshot yet: left out of the totals' }),
    balancesAsOf: NullableInstant('when the oldest balance counted was read'),
  }),
  stale: t.Boolean({
    description: prose`
      true when the current value is not current: a price older than 15 minutes was used, a coin
      Slipway prices had no price yet (it is in \`unpriced\`), or a wallet's network could not be
      read`,
  }),
  unpriced: t.Array(t.Object({
    chain: t.String(),
    token: t.String({ description: 'contract or mint, or `native`' }),
    symbol: t.String(),
  }), { description: 'tokens held but left out of the totals for want of a price: a tenant\'s own tokens, or coins the provider has never priced' }),
}, { title: 'PortfolioPerformance' })

export type PerformanceQuery = Static<typeof PerformanceQuery>
export type Performance = Static<typeof Performance>
