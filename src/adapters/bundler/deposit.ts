/** `slipway paymaster deposit`'s transaction (the bundler adapter's, with viem). */
import { createPublicClient, createWalletClient, http, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { entryPoint08Abi, entryPoint08Address } from 'viem/account-abstraction'

/**
 * `slipway paymaster deposit`: EntryPoint v0.8 `depositTo(paymaster)` with `wei` from a funded
 * key, waiting for the receipt; answers the transaction hash and the deposit after it.
 */
export async function depositToPaymaster(o: { rpcUrl: string; chainId: number; key: Hex; paymaster: Hex; wei: bigint; timeoutMs: number }) {
  const chain = { id: o.chainId, name: 'network', nativeCurrency: { name: 'native', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [o.rpcUrl] } } }
  const pub = createPublicClient({ chain, transport: http(o.rpcUrl, { timeout: o.timeoutMs }), pollingInterval: 250 })
  const wallet = createWalletClient({ chain, transport: http(o.rpcUrl, { timeout: o.timeoutMs }), account: privateKeyToAccount(o.key) })
  const hash = await wallet.writeContract({ address: entryPoint08Address, abi: entryPoint08Abi, functionName: 'depositTo', args: [o.paymaster], value: o.wei })
  const r = await pub.waitForTransactionReceipt({ hash })
  if (r.status !== 'success') throw new Error(`the deposit transaction ${hash} reverted`)
  const deposit = await pub.readContract({ address: entryPoint08Address, abi: entryPoint08Abi, functionName: 'balanceOf', args: [o.paymaster] })
  return { hash, deposit }
}
