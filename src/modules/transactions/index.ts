/**
 * The transactions module's face. The verbs that load the chain libraries (a send, a
 * contract call, a broadcast, holds against a wallet's balance, a status refreshed) are
 * behind one handle, `transactions`, loaded by the first call: importing this face loads
 * no chain library. Beside it: the transaction reads other modules make (lookups.ts), who
 * signs a wallet's sends, the errors and schemas other routes share, its jobs and routes.
 */
import { lazyService } from '../../lib/lazy'

/** The transaction verbs other modules call, loaded with the chain libraries by the first call. */
export const transactions = lazyService(() => import('./impl'))
export type { EvmNet } from './families/evm-calls'
export type { RelaySigner, WalletRow } from './families/port'
export { findPrepared, findTransaction, findUserPrepared, findUserTransaction, insertTransaction } from './lookups'
export type { PreparedRow, TransactionRow } from './lookups'
export { isCustodial, walletSecret } from './shared'
export { HOLD_UNSENT_TTL_MS, insufficientBalance } from './hold-rules'
export { blockchainError, preparedNotFound, signatureDecodeFailed } from './errors'
export { relayerNonceKey } from './nonces'
export { Broadcast, BroadcastBody, Created, chainErrors } from './model'
export { registerTransactionJobs } from './jobs'
export { transactionRoutes } from './routes'
