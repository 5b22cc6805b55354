import { iso } from '../../lib/clock'
import type { Wallet } from './model'
import type { WalletRow } from './schema'

/** A wallet row as answered (the `Wallet` schema in model.ts): no key material. */
export function walletView(w: WalletRow): typeof Wallet.static {
  return {
    id: w.id,
    userId: w.userId,
    chain: w.chain,
    address: w.address,
    label: w.label,
    walletType: w.walletType,
    isPrimary: w.isPrimary,
    isWatchOnly: w.isWatchOnly,
    isTestnet: w.isTestnet,
    keyManagementScheme: w.keyManagementScheme,
    createdAt: iso(w.createdAt),
    updatedAt: iso(w.updatedAt),
  }
}
