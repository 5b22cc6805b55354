/**
 * A real local EVM node for tests: ganache in process on 127.0.0.1, one per test file,
 * with the test ERC-20 from tests/fixtures deployed by a funded account.
 *
 * `placeToken(address)` puts the deployed token's code at another address (such as the
 * registry's USDC address) and credits the funder there, so the real token registry
 * reads a real ERC-20 on the local node. `installMulticall3()` puts a Multicall3 at its
 * canonical address, for the adapter's multicall path.
 */
import ganache from 'ganache'
import { createPublicClient, createWalletClient, defineChain, encodeAbiParameters, http, keccak256, parseEther, toHex, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import token from '@tests/fixtures/test-token.json'
import multicall3 from '@tests/fixtures/multicall3.json'

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
  stop(): Promise<void>
}

/** `dbPath`: a folder of the caller's for the chain's data (ganache otherwise makes its own under the temp directory and may leave it behind). */
export async function startLocalChain(opts: { chainId?: number; dbPath?: string } = {}): Promise<LocalChain> {
  const chainId = opts.chainId ?? 1337
  const funder = privateKeyToAccount(FUNDER_KEY)
  const server = ganache.server({
    logging: { quiet: true },
    ...(opts.dbPath ? { database: { dbPath: opts.dbPath } } : {}),
    chain: { chainId, hardfork: 'shanghai' },
    wallet: { accounts: [{ secretKey: FUNDER_KEY, balance: `0x${parseEther('1000').toString(16)}` }] },
  } as never)
  await server.listen(0, '127.0.0.1')
  const port = (server.address() as { port: number }).port
  const url = `http://127.0.0.1:${port}`
  const chain = defineChain({ id: chainId, name: 'ganache', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } })
  const pub = createPublicClient({ chain, transport: http(url) })
  const wallet = createWalletClient({ chain, transport: http(url), account: funder })
  const deployHash = await wallet.deployContract({ abi: token.abi, bytecode: token.bytecode as Hex, args: ['USD Coin', 'USDC', 6, SUPPLY] })
  const tokenAddress = (await pub.waitForTransactionReceipt({ hash: deployHash })).contractAddress!
  const rpc = (method: string, params: unknown[]) => pub.request({ method, params } as never)
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
      await rpc('evm_setAccountCode', [at, code])
      const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [funder.address, BALANCE_SLOT]))
      await rpc('evm_setAccountStorageAt', [at, slot, toHex(SUPPLY, { size: 32 })])
    },
    async installMulticall3() {
      await rpc('evm_setAccountCode', [MULTICALL3_ADDRESS, multicall3.deployedBytecode])
    },
    stop: () => server.close(),
  }
}
