/**
 * A wallet's private key at rest: sealed with a data key of its own, itself wrapped by
 * MASTER_KEY, each bound to the wallet (tenant, id, address) as associated data. Apart
 * from keys.ts so that opening a key for one signature loads no chain library.
 */
import { randomBytes } from 'node:crypto'
import { Sealer } from '../../lib/crypto'

export interface SealedKey {
  dataKeyWrapped: string
  keySealed: string
  keyVersion: number
}

export interface KeyBinding {
  tenantId: string
  walletId: string
  address: string
}

/** Associated data of a wallet's data key, wrapped by MASTER_KEY. */
export const dekAad = (b: Pick<KeyBinding, 'tenantId' | 'walletId'>) => `wallet:${b.tenantId}:${b.walletId}:dek`
const keyAad = (b: KeyBinding) => `wallet:${b.tenantId}:${b.walletId}:${b.address}`

export function sealKey(master: Sealer, binding: KeyBinding, secret: Uint8Array): SealedKey {
  const dek = randomBytes(32)
  const dataKeyWrapped = master.seal(dek, dekAad(binding))
  const keySealed = new Sealer(dek).seal(secret, keyAad(binding))
  dek.fill(0)
  return { dataKeyWrapped, keySealed, keyVersion: Sealer.versionOf(dataKeyWrapped) }
}

export function openKey(master: Sealer, binding: KeyBinding, sealed: { dataKeyWrapped: string; keySealed: string }): Uint8Array {
  const dek = master.openBytes(sealed.dataKeyWrapped, dekAad(binding))
  try {
    return Uint8Array.from(new Sealer(dek).openBytes(sealed.keySealed, keyAad(binding)))
  } finally {
    dek.fill(0)
  }
}
