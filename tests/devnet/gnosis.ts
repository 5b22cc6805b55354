/**
 * Test helpers for the devnet's gnosis-chiado node (scripts/devnet/chain.ts): clients, token
 * balances, a fresh account with gas and tokens, and sending a transaction as given.
 */
import { createPublicClient, createWalletClient, defineChain, http, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { DEVNET_CHIADO_CHAIN_ID, giveChiadoGas } from '../../scripts/devnet/chain'
import token from '../../scripts/devnet/SandboxUSD.json'
import router from '../../scripts/devnet/SandboxRouter.json'

export const routerArtifact = router
export const NATIVE: Address = '0x0000000000000000000000000000000000000000'

export function gnosisClients(url: string, key: Hex = generatePrivateKey()) {
  const chain = defineChain({ id: DEVNET_CHIADO_CHAIN_ID, name: 'devnet-chiado', nativeCurrency: { name: 'xDai', symbol: 'xDAI', decimals: 18 }, rpcUrls: { default: { http: [url] } } })
  const account = privateKeyToAccount(key)
  const pub = createPublicClient({ chain, transport: http(url) })
  const wallet = createWalletClient({ chain, transport: http(url), account })
  const mined = async (hash: Hex) => {
    const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`)
    return receipt
  }
  return {
    pub, wallet, account, address: account.address,
    /** a token's balance (NATIVE: the coin's) */
    balance: (tokenAddress: Address, who: Address = account.address) => tokenAddress === NATIVE
      ? pub.getBalance({ address: who })
      : pub.readContract({ address: tokenAddress, abi: token.abi, functionName: 'balanceOf', args: [who] }) as Promise<bigint>,
    /** gas from the devnet and `amount` of an open-mint token */
    fund: async (tokenAddress: Address | null, amount: bigint, gasWei = 10n ** 18n) => {
      await giveChiadoGas(url, account.address, gasWei)
      if (tokenAddress) await mined(await wallet.writeContract({ address: tokenAddress, abi: token.abi, functionName: 'mint', args: [account.address, amount] } as never))
    },
    approve: async (tokenAddress: Address, spender: Address, amount: bigint) =>
      mined(await wallet.writeContract({ address: tokenAddress, abi: token.abi, functionName: 'approve', args: [spender, amount] } as never)),
    swap: async (routerAddress: Address, args: [Address, Address, bigint, bigint, Address], value = 0n) =>
      mined(await wallet.writeContract({ address: routerAddress, abi: router.abi, functionName: 'swap', args, value } as never)),
    /** sends a quote's transactionRequest as it is (to, data, value, gasLimit, gasPrice) */
    send: async (tx: { to: string; data: string; value: string; gasLimit: string; gasPrice?: string }) =>
      mined(await wallet.sendTransaction({ to: tx.to as Address, data: tx.data as Hex, value: BigInt(tx.value), gas: BigInt(tx.gasLimit), ...(tx.gasPrice ? { gasPrice: BigInt(tx.gasPrice) } : {}) } as never)),
    mined,
  }
}
