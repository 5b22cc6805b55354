/** The devnet chain's test USDC as the x402 tests read and fund it: balances, a mint from the funder, one more block. */
import { createPublicClient, createWalletClient, defineChain, http, type Address } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { DEVNET_CHAIN_ID, DEVNET_KEYS, DEVNET_USDC } from '../../scripts/devnet/chain'
import token from '../../scripts/devnet/SandboxUSD.json'

export function devnetUsdc(url: string) {
  const chain = defineChain({ id: DEVNET_CHAIN_ID, name: 'devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } })
  const pub = createPublicClient({ chain, transport: http(url) })
  const funder = createWalletClient({ chain, transport: http(url), account: privateKeyToAccount(DEVNET_KEYS.funder) })
  return {
    balanceOf: (who: Address) => pub.readContract({ address: DEVNET_USDC, abi: token.abi, functionName: 'balanceOf', args: [who] }) as Promise<bigint>,
    async mint(to: Address, units: bigint) {
      const hash = await funder.writeContract({ address: DEVNET_USDC, abi: token.abi, functionName: 'mint', args: [to, units] } as never)
      await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    },
    /** one block (the devnet in these tests mines only with transactions): the chain's time moves on */
    mine: () => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] }) }),
  }
}
