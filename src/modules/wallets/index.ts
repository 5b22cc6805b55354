/**
 * The wallets module's face. The verbs that load the chain libraries (a wallet of the
 * caller's, a new wallet, an address checked, balances read) are behind one handle,
 * `wallets`, loaded by the first call: importing this face loads no chain library. Beside
 * it: the wallet reads other modules make (lookups.ts), a key opened for one signature,
 * the view, the registration collaborators, the balance cache and the routes.
 */
export { wallets } from './handle'
export type { ownWallet, readWallet } from './impl'
export { anyLiveWallet, findByAddress, findPrimary, findUserWallet, findWallet, listUserWallets, ownersWithWallets, walletAsRead, walletQuery } from './lookups'
export type { WalletRow } from './lookups'
export { resolveChain } from './chains'
export { openKey } from './sealing'
export { addressKeyOf } from './address-key'
export { walletView } from './view'
export { Wallet } from './model'
export { BalanceCache } from './balance-cache'
export { registrationWallets, walletOwnerLookup } from './registration'
export { sealedColumns } from './sealed'
export { userWalletRoutes, walletRoutes } from './routes'
