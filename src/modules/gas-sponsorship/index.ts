/**
 * The gas sponsorship module's face: the tenant's gas policies and usage, the ERC-7677
 * paymaster service, and what the transactions module calls to send a custodial wallet's
 * operation sponsored (the policy and limits held in the write that records it, the
 * paymaster's deposit watched, the outcome settled or released), and the paymaster signer's
 * sealed key (`slipway paymaster signer`, `slipway reseal`). Verbs that load viem are
 * behind `gasSponsorship`, loaded by the first call.
 */
import { lazyService } from '../../lib/lazy'

export const gasSponsorship = lazyService(() => import('./impl'))
export { reserveSponsorship, releaseSponsorship, settleSponsorship, checkCovered } from './sponsorship'
export type { SponsorRequest } from './sponsorship'
export type { Sponsor } from './network'
export { GAS_EVENT_TYPES } from './events'
export { GAS_OPERATION_KINDS } from './schema'
export type { GasOperationKind, SponsorshipRow } from './schema'
export { gasSponsorshipRoutes } from './routes'
export { registerGasSponsorshipJobs } from './jobs'
export { sealedColumns, storeSigner as storePaymasterSigner, hasSigner as hasPaymasterSigner } from './signer'
