/**
 * Swaps on the devnet's gnosis-chiado node (Gnosis's testnet, chain id 10200, the sandbox
 * aggregator's router): a custodial gnosis testnet wallet (`isTestnet: true`) given 10 xDAI of gas
 * by the devnet, then 2 xDAI swapped for USDC (a native source: no approval) and 1 USDC for EURe
 * (the router approved first). Every call says `isTestnet: true`: the sandbox aggregator quotes
 * chiado's chain id, and nothing here can reach gnosis mainnet.
 *
 *   npm run devnet; npm start; eval "$(npm run -s slipway -- tenant create --name Acme --sandbox)"
 *   npx bun examples/swaps.ts [--user <name>]     # DEVNET_CHIADO_RPC: the chiado node (default http://127.0.0.1:8546)
 */
import { orThrow } from '@slipway/client'
import { client, confirmed, main, signedIn } from './_setup'

// the registry's gnosis-chiado tokens (GET /v1/tokens/chain/gnosis-chiado)
const USDC = '0xDDAfbb505ad214D7b80b1f830fcCc89B60fb7A83'
const EURE = '0xb106ed7587365a16b6691a3D4B2A734f4E8268a2'
const XDAI = '0x0000000000000000000000000000000000000000'

main('swaps', async () => {
  const slipway = client()
  await signedIn(slipway, 'swapper', 'examples/swaps.ts')
  const mine = orThrow(await slipway.api.GET('/v1/wallets/')).data.find((w) => w.chain === 'gnosis' && w.isTestnet)
  const wallet = mine ?? orThrow(await slipway.api.POST('/v1/wallets/', { body: { chain: 'gnosis', isTestnet: true } }))
  // gas from the devnet node itself (the sandbox faucet pays on Sepolia): 10 xDAI
  const rpc = process.env.DEVNET_CHIADO_RPC ?? 'http://127.0.0.1:8546'
  const gas = await fetch(rpc, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [wallet.address, '0x8ac7230489e80000'] }) })
  if (!gas.ok) throw new Error(`the devnet's chiado node at ${rpc} answered ${gas.status}: is npm run devnet running?`)
  console.log(`wallet ${wallet.address} on the devnet's gnosis-chiado (isTestnet: ${wallet.isTestnet}), 10 xDAI of gas`)

  const swap = async (fromToken: string, toToken: string, fromAmount: string) => {
    const q = orThrow(await slipway.api.POST('/v1/swap/quote', { body: { walletId: wallet.id, fromChain: 'gnosis', toChain: 'gnosis', isTestnet: true, fromToken, toToken, fromAmount } }))
    if (q.needsApproval) {
      const approval = orThrow(await slipway.api.POST('/v1/swap/approve', { body: { walletId: wallet.id, tokenAddress: fromToken, spenderAddress: q.approvalAddress!, amount: q.fromAmount } }))
      await confirmed(slipway, approval.id)
    }
    const s = orThrow(await slipway.api.POST('/v1/swap/execute', { body: { quoteId: q.quoteId }, params: { header: { 'idempotency-key': crypto.randomUUID() } } }))
    await confirmed(slipway, s.id)
    return q
  }
  const first = await swap(XDAI, USDC, '2000000000000000000')
  console.log(`swapped 2 xDAI for ${first.toAmount} USDC units`)
  const second = await swap(USDC, EURE, '1000000')
  console.log(`swapped 1 USDC for ${second.toAmount} EURe units (router approved first: ${second.needsApproval})`)
})
