/**
 * A real local EVM node for tests: ganache in process on 127.0.0.1 (chain id 1337),
 * one per test file, with the test ERC-20 from tests/fixtures deployed by a funded account.
 */
import ganache from 'ganache'
import { createPublicClient, createWalletClient, defineChain, http, parseEther, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import token from '@tests/fixtures/test-token.json'

export const FUNDER_KEY: Hex = '0x4f3edf983ac636a65a842ce7c78d9aa706d3b113bce9c46f30d7d21715b23b1d'

export interface LocalChain {
  url: string
  tokenAddress: Address
  /** sends native coin from the funded account and waits for the receipt */
  sendNative(to: Address, wei: bigint): Promise<void>
  /** transfers test tokens from the funded account and waits for the receipt */
  sendToken(to: Address, amount: bigint): Promise<void>
  stop(): Promise<void>
}

export async function startLocalChain(): Promise<LocalChain> {
  const funder = privateKeyToAccount(FUNDER_KEY)
  const server = ganache.server({
    logging: { quiet: true },
    chain: { chainId: 1337, hardfork: 'shanghai' },
    wallet: { accounts: [{ secretKey: FUNDER_KEY, balance: `0x${parseEther('1000').toString(16)}` }] },
    miner: { instamine: 'eager' },
  } as never)
  await server.listen(0, '127.0.0.1')
  const port = (server.address() as { port: number }).port
  const url = `http://127.0.0.1:${port}`
  const chain = defineChain({ id: 1337, name: 'ganache', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } })
  const pub = createPublicClient({ chain, transport: http(url) })
  const wallet = createWalletClient({ chain, transport: http(url), account: funder })
  const deployHash = await wallet.deployContract({ abi: token.abi, bytecode: token.bytecode as Hex, args: ['Test Dollar', 'TUSD', 6, 1_000_000_000_000n] })
  const receipt = await pub.waitForTransactionReceipt({ hash: deployHash })
  const tokenAddress = receipt.contractAddress!
  return {
    url,
    tokenAddress,
    async sendNative(to, wei) {
      const hash = await wallet.sendTransaction({ to, value: wei })
      await pub.waitForTransactionReceipt({ hash })
    },
    async sendToken(to, amount) {
      const hash = await wallet.writeContract({ address: tokenAddress, abi: token.abi, functionName: 'transfer', args: [to, amount] })
      await pub.waitForTransactionReceipt({ hash })
    },
    stop: () => server.close(),
  }
}
