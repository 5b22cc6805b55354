/** The faucet's amounts (a leaf: the routes read them without loading the service and its chain code). */

/** The native balance the faucet tops a wallet up to: 0.05 of the coin, gas for a few hundred transfers on a devnet. */
export const GAS_TARGET_WEI = 50_000_000_000_000_000n
/** The most of the stablecoin one call mints: 10,000 (6 decimals). */
export const STABLECOIN_MAX = 10_000_000_000n
