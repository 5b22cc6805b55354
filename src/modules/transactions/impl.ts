/** What the transaction routes load on their first request (see routes.ts): the services and, through them, the chain libraries. */
export { broadcastTransaction } from './broadcast'
export { aggregatedFeed, aggregatedItem } from './feed'
export { transactionStatus } from './refresh'
export { createTransaction, listTransactions, ownTransaction, quoteTransaction } from './service'
