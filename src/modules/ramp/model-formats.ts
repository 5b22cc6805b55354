/** Shapes shared by the bank ramp request and answer schemas: the environment flag and the money text formats. */
import { t } from 'elysia'

export const IsTestnet = t.Optional(t.Boolean({ description: '`true`: the bank ramp sandbox; `false` or omitted: production' }))
export const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T) => t.Union([s, t.Null()])
export const Environment = t.Union([t.Literal('sandbox'), t.Literal('production')])

/*
 * Money in answers is always a JSON string, never a number, so no amount passes through a float
 * (docs/bank-ramp.md, Amounts; tests/platform/money-format.test.ts checks the document). Three formats:
 * - decimal text without trailing zeros: deposits, pay-in transactions, rates, channel figures, quotes and payouts;
 * - fiat with exactly 2 decimals: only the `fiatAmount` of `POST payout/initiate`'s answer, as the platform API
 *   spec fixes it ("Payout initiate response `fiatAmount` ... has 2 decimals");
 * - integer text in the stablecoin's smallest unit (6 decimals): a payout's crypto amounts.
 */
/** Exact decimal text without trailing zeros, as `decimalText` (views.ts) writes it: `100.5`, `0.25`, `15000`. */
export const DecimalText = (description: string) => t.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]*[1-9])?$', maxLength: 61, description: `${description}; exact decimal text without trailing zeros` })
/** Fiat with exactly 2 decimals (`100.00`): the payout initiate answer's `fiatAmount` only. */
export const Fiat2Text = (description: string) => t.String({ pattern: '^(0|[1-9][0-9]*)\\.[0-9]{2}$', maxLength: 40, description: `${description}; decimal text with exactly 2 decimals` })
/** Integer text in the stablecoin's smallest unit (`25000000` = 25 with 6 decimals). */
export const UnitsText = (description: string) => t.String({ pattern: '^(0|[1-9][0-9]*)$', maxLength: 78, description: `${description}; integer text in the smallest unit (6 decimals)` })
