/**
 * What other modules read and record of transactions, by name: one transaction (the
 * tenant's, or a user's), a prepared transaction waiting for its signature, and a
 * transaction another module records itself (a swap's simulation). Each takes an executor
 * and the tenant first, so a caller works in its own write when it has one.
 */
import * as repo from './repo'

export type { PreparedRow, TransactionRow } from './repo'

export const findTransaction = repo.findTransaction
export const findUserTransaction = repo.findUserTransaction
export const findPrepared = repo.findPrepared
export const findUserPrepared = repo.findUserPrepared
export const insertTransaction = repo.insertTransaction
