/**
 * What other modules read of wallets, by name: one wallet by id (the tenant's, or a user's),
 * a user's wallets, a user's primary wallet on a chain, the wallet at an address, the owners
 * with wallets (the portfolio snapshot job), and whether any wallet lives at all. Each takes
 * the tenant first and an executor, so a caller reads in its own write when it has one.
 */
import * as repo from './repo'

export type { WalletRow } from './schema'

export const findWallet = repo.findWallet
export const walletQuery = repo.walletQuery
export const walletAsRead = repo.walletAsRead
export const findUserWallet = repo.findUserWallet
export const listUserWallets = repo.listUserWallets
export const findPrimary = repo.findPrimary
export const findByAddress = repo.findByAddress
export const ownersWithWallets = repo.ownersWithWallets
export const anyLiveWallet = repo.anyLiveWallet
