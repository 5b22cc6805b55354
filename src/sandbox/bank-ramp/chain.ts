/**
 * The simulator's own wallet on an EVM chain: it pays the converted stablecoin (an ERC-20
 * with 6 decimals) to the user's address, so the user's balance really changes. This is the
 * partner's side of the world, so it has its own viem client rather than Slipway's chain adapter.
 */
import { createPublicClient, createWalletClient, http, parseAbi, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

export interface SimulatorChain {
  /** sends `amount` (smallest unit, 6 decimals) and answers the transaction hash once mined */
  sendStablecoin(to: string, amount: bigint): Promise<string>
}

const ERC20 = parseAbi(['function transfer(address to, uint256 amount) returns (bool)'])

export function evmSimulatorChain(opts: { rpcUrl: string; tokenAddress: string; privateKey: string; timeoutMs?: number }): SimulatorChain {
  const account = privateKeyToAccount(opts.privateKey as Hex)
  const transport = http(opts.rpcUrl, { timeout: opts.timeoutMs ?? 15_000 })
  const pub = createPublicClient({ transport })
  const wallet = createWalletClient({ transport, account })
  // one send at a time keeps the wallet's nonces in order
  let queue: Promise<unknown> = Promise.resolve()
  return {
    sendStablecoin(to, amount) {
      const run = queue.then(async () => {
        const chainId = await pub.getChainId()
        const hash = await wallet.writeContract({
          address: opts.tokenAddress as Address, abi: ERC20, functionName: 'transfer', args: [to as Address, amount],
          chain: { id: chainId, name: 'sandbox', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [opts.rpcUrl] } } },
        })
        const receipt = await pub.waitForTransactionReceipt({ hash, timeout: opts.timeoutMs ?? 15_000, pollingInterval: 100 })
        if (receipt.status !== 'success') throw new Error('transfer reverted')
        return hash
      })
      queue = run.catch(() => {})
      return run
    },
  }
}
