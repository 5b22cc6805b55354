/**
 * Who receives a swap's output (rule 2 of the spec's quote), on the quote's network (mainnet,
 * or testnet for `isTestnet`). With `toAddress`, that address (checked for the destination's family). Without it: a same-chain swap pays the
 * source wallet; a cross-chain swap pays the user's primary wallet on `toChain`; an EVM
 * destination without one falls back to the source wallet when it is EVM, else to another
 * EVM wallet of the user (an EVM address is the same on every EVM chain); a Solana
 * destination uses the user's Solana wallet, created during the call (the wallets module's
 * own creation, custodial, primary) when the user has none.
 */
import type { Ctx } from '../../context'
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors'
import { chainByFamily, type ChainDef } from '../tokens'
import type { WalletRow } from '../transactions'
import { wallets } from '../wallets'
import * as walletsRepo from '../wallets'

export async function destinationAddress(ctx: Ctx, tenantId: string, source: WalletRow, from: ChainDef, to: ChainDef, toAddress?: string, isTestnet = false): Promise<string> {
  if (toAddress !== undefined) {
    const a = await wallets.normalizeAddress(to.family, toAddress)
    if (!a) throw new BadRequestError(`toAddress is not a valid ${to.id} address`)
    return a
  }
  if (from.id === to.id) return source.address
  const db = ctx.deps.database.db
  const userId = ctx.actor.userId
  const primary = await walletsRepo.findPrimary(db, tenantId, userId, to.id, isTestnet)
  if (primary) return primary.address
  const isEvm = (w: { chain: string }) => chainByFamily(w.chain)?.family === 'evm'
  if (to.family === 'evm') {
    if (isEvm(source)) return source.address
    const { rows } = await walletsRepo.listUserWallets(db, tenantId, userId, { isTestnet })
    const evm = rows.find((w) => isEvm(w) && w.isPrimary) ?? rows.find(isEvm)
    if (evm) return evm.address
    throw new NotFoundError(`No primary wallet found for ${to.id}; pass toAddress`)
  }
  const own = await solanaWallet(ctx, tenantId, isTestnet)
  if (own) return own
  try {
    return (await wallets.createWallet(ctx, { chain: 'solana', isPrimary: true, ...(isTestnet ? { isTestnet } : {}) })).address
  } catch (err) {
    // a concurrent quote created it first
    if (err instanceof ConflictError) {
      const again = await solanaWallet(ctx, tenantId, isTestnet)
      if (again) return again
    }
    throw err
  }
}

async function solanaWallet(ctx: Ctx, tenantId: string, isTestnet: boolean) {
  const { rows } = await walletsRepo.listUserWallets(ctx.deps.database.db, tenantId, ctx.actor.userId, { chain: 'solana', isTestnet })
  return rows[0]?.address
}
