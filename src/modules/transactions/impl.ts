/** The transaction verbs routes.ts loads on the first transaction request, and with them the chain libraries. */
export { broadcastTransaction } from './broadcast'
export { aggregatedFeed, aggregatedItem } from './feed'
export { transactionStatus } from './refresh'
export { createEvmCall, createSponsoredBatch, createTransaction, listTransactions, ownTransaction, quoteTransaction } from './service'
// the verbs other modules call through the transactions face's handle
export { createSolanaCall } from './solana-call'
export { submitClientSigned } from './client-signed'
export { findHold, placeHold, releaseHold, sendOfHold, shortenHold, walletBalances } from './holds'
export { evmNet } from './families/evm-calls'
export { refreshedTransaction } from './refresh'
