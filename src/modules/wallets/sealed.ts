/**
 * The wallets' sealed values, for `slipway reseal` (src/ops/reseal.ts): each wallet's
 * wrapped data key. The private key sealed under that data key is untouched, and the
 * key version kept beside the wrapped key follows it.
 */
import { sealedTextColumn, type SealedColumn } from '../../db/sealed-columns'
import { Sealer } from '../../lib/crypto'
import { dekAad } from './keys'
import { wallets } from './schema'

export const sealedColumns: SealedColumn[] = [
  sealedTextColumn({
    name: 'wallets.data_key_wrapped',
    table: wallets,
    id: wallets.id,
    value: wallets.dataKeyWrapped,
    tenantId: wallets.tenantId,
    aad: (r) => dekAad({ tenantId: r.tenantId!, walletId: r.id }),
    alsoSet: (next) => ({ keyVersion: Sealer.versionOf(next) }),
  }),
]
