/**
 * A funded key that pays an ERC-20 (6 decimals) on an EVM chain: the bank ramp simulator's
 * own wallet (src/sandbox/bank-ramp), which sends the converted stablecoin to the user's
 * address so the balance really changes. It lives beside the chain adapter because viem
 * clients are built only here; viem loads with the first send, like the rest of the chain code.
 */
import type { Address, Hex } from 'viem'
import { knownMainnet } from './mainnets'

export interface StablecoinSender {
  /** sends `amount` (smallest unit, 6 decimals) and answers the transaction hash once mined */
  sendStablecoin(to: string, amount: bigint): Promise<string>
  /** connects and answers the chain id; refuses a mainnet with MainnetChainRefused */
  checkChain?(): Promise<number>
}

/**
 * The simulator pays from a funded key to whoever a sandbox names: on a mainnet that is
 * real money given away, so its chain must be a test network (src/adapters/chain/mainnets.ts).
 */
export class MainnetChainRefused extends Error {
  constructor(readonly chainId: number, readonly chainName: string) {
    super(`BANK_RAMP_SIMULATOR_RPC_URL reaches chain id ${chainId} (${chainName}), a mainnet: the sandbox simulator pays only on test networks`)
    this.name = 'MainnetChainRefused'
  }
}

export function evmStablecoinSender(opts: { rpcUrl: string; tokenAddress: string; privateKey: string; timeoutMs?: number }): StablecoinSender {
  const timeout = opts.timeoutMs ?? 15_000
  const connect = async () => {
    const { createPublicClient, createWalletClient, http, parseAbi } = await import('viem')
    const { privateKeyToAccount } = await import('viem/accounts')
    const transport = http(opts.rpcUrl, { timeout })
    const pub = createPublicClient({ transport })
    const chainId = await pub.getChainId()
    const mainnet = await knownMainnet(chainId)
    if (mainnet) throw new MainnetChainRefused(chainId, mainnet)
    const chain = { id: chainId, name: 'sandbox', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [opts.rpcUrl] } } }
    const wallet = createWalletClient({ transport, account: privateKeyToAccount(opts.privateKey as Hex), chain })
    return { pub, wallet, chainId, abi: parseAbi(['function transfer(address to, uint256 amount) returns (bool)']) }
  }
  let clients: ReturnType<typeof connect> | undefined
  // a failed connection is tried again on the next use; a refused mainnet stays refused
  const connected = () => (clients ??= connect().catch((err) => {
    if (!(err instanceof MainnetChainRefused)) clients = undefined
    throw err
  }))
  // one send at a time keeps the wallet's nonces in order
  let queue: Promise<unknown> = Promise.resolve()
  return {
    async checkChain() {
      return (await connected()).chainId
    },
    sendStablecoin(to, amount) {
      const run = queue.then(async () => {
        const { pub, wallet, abi } = await connected()
        const hash = await wallet.writeContract({ address: opts.tokenAddress as Address, abi, functionName: 'transfer', args: [to as Address, amount] })
        const receipt = await pub.waitForTransactionReceipt({ hash, timeout, pollingInterval: 100 })
        if (receipt.status !== 'success') throw new Error('transfer reverted')
        return hash
      })
      queue = run.catch(() => {})
      return run
    },
  }
}
