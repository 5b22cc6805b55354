/**
 * A real local EVM node for tests: anvil (scripts/devnet/anvil.ts) as a child process on
 * 127.0.0.1, one per test file, running the current hard fork (Prague or later) with a block
 * per transaction, and the test ERC-20 from tests/fixtures deployed by a funded account.
 *
 * `placeToken(address)` puts the deployed token's code at another address (such as the
 * registry's USDC address) and credits the funder there, so the real token registry
 * reads a real ERC-20 on the local node. `installMulticall3()` puts a Multicall3 at its
 * canonical address, for the adapter's multicall path. `rpc` reaches the node's own methods
 * (`anvil_dropTransaction`, `evm_setAutomine`, ...); `pauseMining()` and `resumeMining()`
 * hold sends in the node's pool and mine them.
 */
import { createPublicClient, createWalletClient, defineChain, encodeAbiParameters, http, keccak256, parseEther, toHex, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import token from '@tests/fixtures/test-token.json'
import multicall3 from '@tests/fixtures/multicall3.json'
import { startAnvil } from '../../scripts/devnet/anvil'

export const FUNDER_KEY: Hex = '0x4f3edf983ac636a65a842ce7c78d9aa706d3b113bce9c46f30d7d21715b23b1d'
export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'
const SUPPLY = 1_000_000_000_000n
/** storage slot of `balanceOf` in tests/fixtures/test-token.sol (name, symbol, totalSupply come first) */
const BALANCE_SLOT = 3n

export interface LocalChain {
  url: string
  chainId: number
  tokenAddress: Address
  /** sends native coin from the funded account and waits for the receipt */
  sendNative(to: Address, wei: bigint): Promise<void>
  /** transfers tokens (of `tokenAt`, default the deployed one) from the funded account */
  sendToken(to: Address, amount: bigint, tokenAt?: Address): Promise<void>
  placeToken(at: Address): Promise<void>
  installMulticall3(): Promise<void>
  /** a JSON-RPC call to the node (its `anvil_*` and `evm_*` methods too); throws the node's error */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>
  /** no more blocks: sends wait in the node's pool */
  pauseMining(): Promise<void>
  /** a block per transaction again, and one now for what waits */
  resumeMining(): Promise<void>
  stop(): Promise<void>
}

/**
 * `blockTime`: seconds between blocks (interval mining) instead of a block per transaction.
 * `dbPath` is accepted for callers written for the earlier node and unused: anvil keeps the
 * chain in memory and leaves nothing on disk.
 */
export async function startLocalChain(opts: { chainId?: number; dbPath?: string; blockTime?: number } = {}): Promise<LocalChain> {
  const chainId = opts.chainId ?? 1337
  const funder = privateKeyToAccount(FUNDER_KEY)
  const node = await startAnvil({ chainId, blockTime: opts.blockTime, balances: [{ address: funder.address, wei: parseEther('1000') }] })
  const url = node.url
  try {
    const chain = defineChain({ id: chainId, name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } })
    const pub = createPublicClient({ chain, transport: http(url), pollingInterval: 50 })
    const wallet = createWalletClient({ chain, transport: http(url), account: funder })
    const deployHash = await wallet.deployContract({ abi: token.abi, bytecode: token.bytecode as Hex, args: ['USD Coin', 'USDC', 6, SUPPLY] })
    const tokenAddress = (await pub.waitForTransactionReceipt({ hash: deployHash })).contractAddress!
    const rpc = node.rpc
    return {
      url,
      chainId,
      tokenAddress,
      async sendNative(to, wei) {
        const hash = await wallet.sendTransaction({ to, value: wei })
        await pub.waitForTransactionReceipt({ hash })
      },
      async sendToken(to, amount, tokenAt = tokenAddress) {
        const hash = await wallet.writeContract({ address: tokenAt, abi: token.abi, functionName: 'transfer', args: [to, amount] })
        await pub.waitForTransactionReceipt({ hash })
      },
      async placeToken(at) {
        // The deployed code carries the constructor's immutables (decimals), unlike solc's output.
        const code = await pub.getCode({ address: tokenAddress })
        await rpc('anvil_setCode', [at, code])
        const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [funder.address, BALANCE_SLOT]))
        await rpc('anvil_setStorageAt', [at, slot, toHex(SUPPLY, { size: 32 })])
      },
      async installMulticall3() {
        await rpc('anvil_setCode', [MULTICALL3_ADDRESS, multicall3.deployedBytecode])
      },
      rpc,
      async pauseMining() {
        await rpc('evm_setAutomine', [false])
        await rpc('evm_setIntervalMining', [0])
      },
      async resumeMining() {
        if (opts.blockTime) await rpc('evm_setIntervalMining', [opts.blockTime])
        else await rpc('evm_setAutomine', [true])
        await rpc('evm_mine', [])
      },
      stop: () => node.stop(),
    }
  } catch (err) {
    await node.stop()
    throw err
  }
}
