/** The transaction verbs routes.ts loads on the first transaction request, and with them the chain libraries. */
export { broadcastTransaction } from './broadcast'
export { aggregatedFeed, aggregatedItem } from './feed'
export { transactionStatus } from './refresh'
export { createEvmCall, createTransaction, listTransactions, ownTransaction, quoteTransaction } from './service'
