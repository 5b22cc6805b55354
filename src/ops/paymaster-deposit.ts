/**
 * `slipway paymaster deposit --network <registry id> --amount <wei>`: tops up the network's
 * paymaster (PAYMASTER_ADDRESS_<NETWORK>) deposit in EntryPoint v0.8 from a funded key, read
 * from standard input (never from the command line, where it would land in the shell's
 * history). Below PAYMASTER_MIN_DEPOSIT_WEI sponsored routes answer 503 PAYMASTER_DEPOSIT_LOW
 * (docs/gas-sponsorship.md).
 */
import type { Config } from '../config'

export const PAYMASTER_DEPOSIT_USAGE = 'usage: echo <funded private key> | slipway paymaster deposit --network <registry id> --amount <wei>'

function option(args: string[], name: string) {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}

/** Exit code: 0 done, 2 bad usage or configuration, 1 the chain refused. Prints one line. */
export async function paymasterDeposit(config: Config, args: string[], readKey: () => Promise<string>, out: (line: string) => void = console.log): Promise<number> {
  const network = option(args, '--network')?.toLowerCase()
  const amount = option(args, '--amount')
  if (!network || !amount || !/^[0-9]{1,30}$/.test(amount) || BigInt(amount) === 0n) {
    out(PAYMASTER_DEPOSIT_USAGE)
    return 2
  }
  const paymaster = config.paymasterAddresses[network]
  const { lookupChain } = await import('../modules/tokens')
  const found = lookupChain(network)
  const rpcUrl = config.rpcUrls[network]
  if (!found || !found.network.chainId || !paymaster || !rpcUrl) {
    out(`slipway: paymaster deposit needs ${network} to be an EVM network with PAYMASTER_ADDRESS_ and RPC_URL_ set for it`)
    return 2
  }
  const key = (await readKey()).trim()
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) {
    out('slipway: standard input must hold the funded key (0x and 64 hex)')
    return 2
  }
  const { depositToPaymaster } = await import('../adapters/bundler')
  try {
    const r = await depositToPaymaster({
      rpcUrl, chainId: found.network.chainId, key: key as `0x${string}`, paymaster: paymaster as `0x${string}`, wei: BigInt(amount), timeoutMs: config.rpcTimeoutMs,
    })
    out(`deposited ${amount} wei for ${paymaster} on ${network} (transaction ${r.hash}); the deposit is now ${r.deposit} wei`)
    return 0
  } catch (err) {
    out(`slipway: the deposit failed: ${(err as Error).message.split('\n')[0]}`)
    return 1
  }
}
