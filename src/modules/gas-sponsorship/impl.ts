/** The verbs behind `gasSponsorship` (index.ts), loaded with viem by the first call. */
export { ensureDeposit, forgetDeposits, sponsorFor, usdRateFor } from './network'
export type { Sponsor } from './network'
export { callsOf, paymasterRpc } from './erc7677'
export { policyCovers } from './cover'
export { settleErc7677 } from './settle'
