/**
 * The wallets' sealed values, for `slipway reseal` (src/ops/reseal.ts): each wallet's
 * wrapped data key, read and written through repo.ts. The private key sealed under that
 * data key is untouched, and the key version kept beside the wrapped key follows it.
 */
import type { SealedColumn } from '../../db/sealed-columns'
import { Sealer } from '../../lib/crypto'
import { dekAad } from './sealing'
import { dataKeyColumn } from './repo'

export const sealedColumns: SealedColumn[] = [
  dataKeyColumn({
    aad: (r) => dekAad({ tenantId: r.tenantId, walletId: r.id }),
    alsoSet: (next) => ({ keyVersion: Sealer.versionOf(next) }),
  }),
]
