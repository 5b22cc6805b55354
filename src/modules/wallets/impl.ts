/**
 * Every wallet service verb, loaded as one module on the first wallet request (see
 * handle.ts): these files import the chain libraries (viem, @solana/web3.js), which a
 * process that never serves a wallet route never loads.
 */
export { createWallet, deleteWallet, getWallet, importWallet, listWallets, setPrimary, userWallets, validateRegistrationWallet, createRegistrationWallet } from './service'
export { exportKey, requestExportToken } from './key-export'
export { cancelMigration, clientChallenge, confirmClientCustody, migrationChallenge, registerClientWallet, registerDevice } from './custody'
export { aggregateBalances, walletBalance } from './balances'
// the verbs other modules call through the wallets face's handle
export { addWallet, ownWallet } from './service'
export { normalizeAddress } from './keys'
export { verifyOwnership } from './custody'
export { readWallet } from './balances'
