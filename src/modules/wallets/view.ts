import { t } from 'elysia'
import { iso } from '../../lib/clock'
import type { WalletRow } from './schema'

/** How exported keys are encrypted (see keys.ts encryptToX25519). */
export const EXPORT_SCHEME = 'x25519-hkdf-sha256-aes-256-gcm'

export const Wallet = t.Object({
  id: t.String({ format: 'uuid' }),
  userId: t.String({ format: 'uuid' }),
  chain: t.String({ description: 'family chain id', examples: ['ethereum'] }),
  address: t.String(),
  label: t.Union([t.String(), t.Null()], { description: 'from the `name` request field' }),
  walletType: t.Union([t.Literal('managed'), t.Literal('imported'), t.Literal('client')], { description: '`managed`: created here; `imported`: key or mnemonic imported; `client`: non-custodial address registered with a signature' }),
  isPrimary: t.Boolean(),
  isWatchOnly: t.Boolean(),
  isTestnet: t.Boolean(),
  keyManagementScheme: t.Union([t.Literal('aes_single'), t.Literal('sss_2of2_akv'), t.Literal('client_side'), t.Literal('client_side_pending'), t.Literal('mpc_tss')]),
  createdAt: t.String({ format: 'date-time' }),
  created_at: t.String({ format: 'date-time', description: 'same as `createdAt` (both spellings appear in the spec)' }),
  updatedAt: t.String({ format: 'date-time' }),
}, { title: 'Wallet' })

export function walletView(w: WalletRow) {
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
    created_at: iso(w.createdAt),
    updatedAt: iso(w.updatedAt),
  }
}
