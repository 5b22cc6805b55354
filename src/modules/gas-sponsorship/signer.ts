/**
 * The paymaster's signer key at rest: one per network (the deployment's, no tenant's), sealed
 * under MASTER_KEY like every other key, bound to its network as associated data so a sealed
 * key copied onto another network's row does not open. `slipway paymaster signer` stores one
 * (read from standard input, or generated); PAYMASTER_SIGNER_PRIVATE_KEY, when set, is imported
 * (sealed) by the first use on a network without one, and is not read again for that network
 * after that. No chain library is loaded here: the address comes from the caller.
 */
import type { Deps } from '../../deps'
import { findSigner, putSigner, signerColumn } from './repo'

export const signerAad = (network: string) => `paymaster_signer:${network}`

/** The sealed signer column, for `slipway reseal`. */
export const sealedColumns = [signerColumn(signerAad)]

/** Whether the network has a signer: stored, or an environment key to import. */
export async function hasSigner(deps: Pick<Deps, 'config' | 'database'>, network: string): Promise<boolean> {
  return !!deps.config.paymasterSignerPrivateKey || !!(await findSigner(deps.database.db, network))
}

/** Seals and stores the network's signer; `replace` false leaves one already stored (answers false then). */
export async function storeSigner(deps: Pick<Deps, 'database' | 'sealer' | 'clock'>, network: string, key: string, address: string, replace: boolean) {
  const now = deps.clock.now()
  const row = { network, address: address.toLowerCase(), keySealed: deps.sealer.seal(key, signerAad(network)), createdAt: now, updatedAt: now }
  return deps.database.write(async (tx) => {
    if (!replace && (await findSigner(tx, network))) return false
    await putSigner(tx, row, replace)
    return true
  })
}

/**
 * The network's signer key (0x and 64 hex), opened for one use, or null when there is none.
 * `addressOf` names the environment key's address when it is imported.
 */
export async function openSigner(deps: Pick<Deps, 'config' | 'database' | 'sealer' | 'clock'>, network: string, addressOf: (key: string) => string) {
  let row = await findSigner(deps.database.db, network)
  const imported = deps.config.paymasterSignerPrivateKey
  if (!row && imported) {
    await storeSigner(deps, network, imported, addressOf(imported), false)
    row = await findSigner(deps.database.db, network)
  }
  return row ? { key: deps.sealer.open(row.keySealed, signerAad(network)) as `0x${string}`, address: row.address } : null
}
