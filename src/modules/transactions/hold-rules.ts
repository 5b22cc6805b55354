/** What a hold answers and how long an unsent one counts, apart from holds.ts so that neither loads a chain library. */
import { blockchainError } from './errors'

/** How long a hold whose send was never recorded counts: its owner stopped (a request's every call has a time limit). */
export const HOLD_UNSENT_TTL_MS = 120_000

export const insufficientBalance = (what: string, available: bigint) =>
  blockchainError(
    400,
    'INSUFFICIENT_BALANCE',
    `The wallet's ${what} balance does not cover this amount beside the sends and holds in flight`
      + ` (available: ${available > 0n ? available : 0n} in the smallest unit)`,
    false,
    'Wait for the wallet\'s pending transactions to settle, or send less',
  )
