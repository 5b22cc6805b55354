/**
 * The sandbox swap aggregator (SWAP_AGGREGATOR=embedded): LI.FI's quote protocol served by
 * Slipway itself under `/sandbox/swap-aggregator`, so swaps run offline on the devnet with the
 * same adapter that talks to LI.FI (src/adapters/swap-aggregator/lifi.ts). The adapter reaches
 * it in process (no network hop, whatever PUBLIC_BASE_URL says), through
 * `AggregatorEndpoint.fetch`.
 *
 * `GET /v1/quote` answers a LI.FI step whose `transactionRequest` calls the devnet's router
 * (scripts/devnet/SandboxRouter.sol): `swap(fromToken, toToken, fromAmount, toAmountMin,
 * toAddress)`, with `msg.value` for the native coin, at the fixed rates of market.ts, which the
 * router holds too. `estimate.approvalAddress` is the router (an ERC-20 input is taken with
 * `transferFrom` after the payer's `approve`). Executing the quote moves real balances.
 * Errors are LI.FI's `{ message, code }`: 1002 (HTTP 404) for a pair or chain it does not
 * quote, 1011 (HTTP 400) for a malformed request, 1006 (HTTP 503) until `npm run devnet` has
 * set the router's address and chains. It holds no key and reads no chain: a quote is
 * arithmetic, the chain checks it on execution (the router reverts below `toAmountMin`).
 */
import { randomUUID } from 'node:crypto'
import type { LiFiStep, Token } from '@lifi/types'
import { CHAINS } from '../../adapters/chain/registry'
import { findToken, marketTokens, NATIVE_TOKEN, rateOf, type MarketToken } from './market'

export const SANDBOX_SWAP_AGGREGATOR_PATH = '/sandbox/swap-aggregator'

/** the fixed gas figures of a sandbox quote: a router swap uses under 100k gas; 2 gwei is above the devnet's base fee */
export const SANDBOX_SWAP_GAS_LIMIT = 200_000n
export const SANDBOX_SWAP_GAS_PRICE = 2_000_000_000n
const TOOL = { key: 'sandbox-router', name: 'Slipway sandbox router', logoURI: '' }
const ROUTER_SWAP_ABI = [{
  type: 'function', name: 'swap', stateMutability: 'payable',
  inputs: [
    { name: 'fromToken', type: 'address' },
    { name: 'toToken', type: 'address' },
    { name: 'amountIn', type: 'uint256' },
    { name: 'minAmountOut', type: 'uint256' },
    { name: 'recipient', type: 'address' },
  ],
  outputs: [{ name: 'amountOut', type: 'uint256' }],
}] as const

export interface SandboxSwapAggregatorOptions {
  publicBaseUrl: string
  /** SANDBOX_SWAP_ROUTER_ADDRESS; unset: every quote answers that `npm run devnet` is needed */
  routerAddress?: string
  /** SANDBOX_SWAP_CHAINS: the chain ids the router is deployed on */
  chainIds: number[]
}

export type SandboxSwapAggregator = ReturnType<typeof createSandboxSwapAggregator>

export function createSandboxSwapAggregator(opts: SandboxSwapAggregatorOptions) {
  const baseUrl = `${opts.publicBaseUrl}${SANDBOX_SWAP_AGGREGATOR_PATH}/v1`
  const testnets = new Set(CHAINS.map((c) => c.testnet.chainId))
  return {
    /** the LI.FI base URL the adapter is pointed at (reached in process through `fetch`) */
    baseUrl,
    /** the testnet chain ids among the ones it serves: what `isTestnet: true` quotes may name (AggregatorEndpoint.testnetChainIds) */
    testnetChainIds: opts.chainIds.filter((id) => testnets.has(id)),
    /** serves requests whose path starts with SANDBOX_SWAP_AGGREGATOR_PATH */
    fetch: async (request: Request): Promise<Response> => {
      const url = new URL(request.url)
      const path = url.pathname.slice(url.pathname.indexOf(SANDBOX_SWAP_AGGREGATOR_PATH) + SANDBOX_SWAP_AGGREGATOR_PATH.length)
      if (request.method !== 'GET' || path.replace(/\/+$/, '') !== '/v1/quote') return lifiError(404, 1003, `No route ${request.method} ${SANDBOX_SWAP_AGGREGATOR_PATH}${path}`)
      if (!opts.routerAddress || opts.chainIds.length === 0) {
        return lifiError(
          503,
          1006,
          'The sandbox swap aggregator is not configured: run `npm run devnet` (it writes SANDBOX_SWAP_ROUTER_ADDRESS and SANDBOX_SWAP_CHAINS to .env.devnet) and restart Slipway',
        )
      }
      return quote(url.searchParams, opts.routerAddress, opts.chainIds)
    },
  }
}

function lifiError(status: number, code: number, message: string) {
  return Response.json({ message, code }, { status })
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/

async function quote(q: URLSearchParams, router: string, chainIds: number[]): Promise<Response> {
  const invalid: string[] = []
  const int = (name: string) => {
    const v = q.get(name)
    if (!v || !/^[0-9]{1,20}$/.test(v)) invalid.push(name)
    return Number(v)
  }
  const fromChain = int('fromChain')
  const toChain = int('toChain')
  const fromTokenQ = q.get('fromToken') ?? ''
  const toTokenQ = q.get('toToken') ?? ''
  if (!fromTokenQ) invalid.push('fromToken')
  if (!toTokenQ) invalid.push('toToken')
  const fromAmountQ = q.get('fromAmount') ?? ''
  if (!/^[0-9]{1,78}$/.test(fromAmountQ) || BigInt(fromAmountQ) === 0n) invalid.push('fromAmount')
  const fromAddress = q.get('fromAddress') ?? ''
  if (!ADDRESS.test(fromAddress)) invalid.push('fromAddress')
  const toAddress = q.get('toAddress') || fromAddress
  if (!ADDRESS.test(toAddress)) invalid.push('toAddress')
  const slippageQ = q.get('slippage')
  const slippage = slippageQ === null || slippageQ === '' ? 0.005 : Number(slippageQ)
  if (!Number.isFinite(slippage) || slippage < 0 || slippage > 1) invalid.push('slippage')
  if (invalid.length) return lifiError(400, 1011, `Invalid request: ${[...new Set(invalid)].join(', ')}`)

  if (fromChain !== toChain) return lifiError(404, 1002, 'No available quotes for the requested transfer: the sandbox aggregator does not bridge between chains')
  if (!chainIds.includes(fromChain)) return lifiError(404, 1002, `No available quotes for the requested transfer: the sandbox aggregator serves chain ${chainIds.join(', ')}, not ${fromChain}`)
  const from = findToken(fromChain, fromTokenQ)
  const to = findToken(toChain, toTokenQ)
  if (!from || !to || from === to || from.address === to.address) return lifiError(404, 1002, `No available quotes for the requested transfer: the sandbox aggregator quotes ${pairList(fromChain)}`)

  const fromAmount = BigInt(fromAmountQ)
  const rate = rateOf(from, to)
  const toAmount = fromAmount * rate.num / rate.den
  if (toAmount === 0n) return lifiError(404, 1002, 'No available quotes for the requested transfer: the amount is too small')
  const slippageMicros = BigInt(Math.round(slippage * 1_000_000))
  const toAmountMin = toAmount * (1_000_000n - slippageMicros) / 1_000_000n
  // viem's ABI encoder loads with the first quote, not with the app
  const { encodeFunctionData, getAddress } = await import('viem')
  const data = encodeFunctionData({
    abi: ROUTER_SWAP_ABI, functionName: 'swap',
    args: [getAddress(from.address), getAddress(to.address), fromAmount, toAmountMin, getAddress(toAddress)],
  })
  const native = findToken(fromChain, NATIVE_TOKEN)
  const gasAmount = SANDBOX_SWAP_GAS_LIMIT * SANDBOX_SWAP_GAS_PRICE
  const action = { fromChainId: fromChain, fromAmount: fromAmountQ, fromToken: token(from), fromAddress, toChainId: toChain, toToken: token(to), toAddress, slippage }
  const estimate = {
    tool: TOOL.key,
    fromAmount: fromAmountQ,
    fromAmountUSD: usd(fromAmount, from),
    toAmount: toAmount.toString(),
    toAmountMin: toAmountMin.toString(),
    toAmountUSD: usd(toAmount, to),
    approvalAddress: router,
    feeCosts: [],
    gasCosts: native ? [{
      type: 'SEND' as const, price: SANDBOX_SWAP_GAS_PRICE.toString(), estimate: SANDBOX_SWAP_GAS_LIMIT.toString(), limit: SANDBOX_SWAP_GAS_LIMIT.toString(),
      amount: gasAmount.toString(), amountUSD: usd(gasAmount, native), token: token(native),
    }] : [],
    executionDuration: 5,
  }
  const id = randomUUID()
  const step: LiFiStep = {
    type: 'lifi', id, tool: TOOL.key, toolDetails: TOOL, action, estimate,
    includedSteps: [{ type: 'swap', id: randomUUID(), tool: TOOL.key, toolDetails: TOOL, action, estimate }],
    transactionRequest: {
      from: fromAddress, to: router, chainId: fromChain, data,
      value: `0x${(from.address === NATIVE_TOKEN ? fromAmount : 0n).toString(16)}`,
      gasLimit: `0x${SANDBOX_SWAP_GAS_LIMIT.toString(16)}`,
      gasPrice: `0x${SANDBOX_SWAP_GAS_PRICE.toString(16)}`,
    },
  }
  return Response.json(step)
}

function token(tk: MarketToken): Token {
  return { chainId: tk.chainId, address: tk.address, symbol: tk.symbol, name: tk.name, decimals: tk.decimals, priceUSD: tk.priceUSD, logoURI: '' } as Token
}

/** the USD value of an amount in smallest units, with 2 decimals (display only) */
function usd(amount: bigint, tk: MarketToken): string {
  const [whole, frac = ''] = tk.priceUSD.split('.')
  const cents = amount * BigInt(whole! + frac.padEnd(6, '0').slice(0, 6)) / 10n ** BigInt(tk.decimals) / 10_000n
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`
}

function pairList(chainId: number): string {
  return `${marketTokens(chainId).map((t) => t.symbol).join(', ')} against each other on chain ${chainId}`
}
