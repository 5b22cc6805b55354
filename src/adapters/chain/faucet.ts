/**
 * The sandbox faucet's funded key on an EVM test chain (src/modules/faucet): it sends the
 * native coin for gas, and mints the devnet's test stablecoin (scripts/devnet/SandboxUSD.sol
 * has an open `mint`). viem clients are built only in this folder; viem loads with the first
 * use. A mainnet is refused, as for the bank ramp simulator's key.
 */
import type { Address, Hex } from 'viem'
import { knownMainnet } from './mainnets'

export interface Faucet {
  /** the chain id the RPC reports; refuses a mainnet */
  chainId(): Promise<number>
  nativeBalance(address: string): Promise<bigint>
  /** sends `wei` and answers the transaction hash once mined */
  sendNative(to: string, wei: bigint): Promise<string>
  /** mints `amount` of the token to `to` and answers the transaction hash once mined */
  mintToken(token: string, to: string, amount: bigint): Promise<string>
}

export function evmFaucet(opts: { rpcUrl: string; privateKey: string; timeoutMs?: number }): Faucet {
  const timeout = opts.timeoutMs ?? 15_000
  const connect = async () => {
    const { createPublicClient, createWalletClient, http, parseAbi } = await import('viem')
    const { privateKeyToAccount } = await import('viem/accounts')
    const transport = http(opts.rpcUrl, { timeout, retryCount: 0 })
    const pub = createPublicClient({ transport })
    const chainId = await pub.getChainId()
    const mainnet = await knownMainnet(chainId)
    if (mainnet) throw new Error(`SANDBOX_FAUCET_RPC_URL reaches chain id ${chainId} (${mainnet}), a mainnet: the faucet gives only test coins`)
    const chain = { id: chainId, name: 'sandbox', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [opts.rpcUrl] } } }
    const wallet = createWalletClient({ transport, account: privateKeyToAccount(opts.privateKey as Hex), chain })
    return { pub, wallet, chainId, abi: parseAbi(['function mint(address to, uint256 value)']) }
  }
  let clients: ReturnType<typeof connect> | undefined
  const connected = () => (clients ??= connect().catch((err) => {
    clients = undefined
    throw err
  }))
  // one transaction at a time keeps the faucet's nonces in order
  let queue: Promise<unknown> = Promise.resolve()
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn)
    queue = run.catch(() => {})
    return run
  }
  const mined = async (pub: Awaited<ReturnType<typeof connect>>['pub'], hash: Hex) => {
    const receipt = await pub.waitForTransactionReceipt({ hash, timeout, pollingInterval: 100 })
    if (receipt.status !== 'success') throw new Error('the faucet transaction reverted')
    return hash
  }
  return {
    chainId: async () => (await connected()).chainId,
    nativeBalance: async (address) => (await connected()).pub.getBalance({ address: address as Address }),
    sendNative: (to, wei) => serial(async () => {
      const { pub, wallet } = await connected()
      return mined(pub, await wallet.sendTransaction({ to: to as Address, value: wei }))
    }),
    mintToken: (token, to, amount) => serial(async () => {
      const { pub, wallet, abi } = await connected()
      return mined(pub, await wallet.writeContract({ address: token as Address, abi, functionName: 'mint', args: [to as Address, amount] }))
    }),
  }
}
