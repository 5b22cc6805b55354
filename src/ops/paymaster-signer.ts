/**
 * `slipway paymaster signer --network <registry id> [--generate] [--replace]`: stores the key the
 * network's paymaster trusts, sealed under MASTER_KEY in the database (never in clear), read from
 * standard input (never from the command line, where it would land in the shell's history) or
 * generated with `--generate`; prints its address, which the paymaster contract's owner names
 * with `setSigner`. A network that has one keeps it unless `--replace` is given. Running servers
 * use a replaced signer within a minute.
 */
import type { Deps } from '../deps'

export const PAYMASTER_SIGNER_USAGE = 'usage: echo <private key> | slipway paymaster signer --network <registry id> [--replace]'
  + '\n       slipway paymaster signer --network <registry id> --generate [--replace]'

/** Exit code: 0 stored, 2 bad usage, 1 a signer is there already (without --replace). Prints one line, never the key. */
export async function paymasterSigner(deps: Pick<Deps, 'database' | 'sealer' | 'clock'>, args: string[], readKey: () => Promise<string>,
  out: (line: string) => void = console.log): Promise<number> {
  const i = args.indexOf('--network')
  const network = i >= 0 ? args[i + 1]?.toLowerCase() : undefined
  const { lookupChain } = await import('../modules/tokens')
  const found = network ? lookupChain(network) : undefined
  if (!network || !found || found.chain.family !== 'evm' || !found.network.chainId) {
    out(network ? `slipway: ${network} is not an EVM network of the registry` : PAYMASTER_SIGNER_USAGE)
    return 2
  }
  const { generatePrivateKey, privateKeyToAccount } = await import('viem/accounts')
  const key = args.includes('--generate') ? generatePrivateKey() : (await readKey()).trim()
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) {
    out('slipway: standard input must hold the signer key (0x and 64 hex), or pass --generate')
    return 2
  }
  const address = privateKeyToAccount(key as `0x${string}`).address
  const { storePaymasterSigner } = await import('../modules/gas-sponsorship')
  if (!(await storePaymasterSigner(deps, found.network.id, key, address, args.includes('--replace')))) {
    out(`slipway: ${found.network.id} has a paymaster signer already; pass --replace to replace it`)
    return 1
  }
  out(`paymaster signer for ${found.network.id}: ${address} (sealed in the database); the paymaster's owner names it with setSigner(${address})`)
  return 0
}
