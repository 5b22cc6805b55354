/**
 * What the sandbox swap aggregator quotes, in one place: the devnet's swap chains and a fixed
 * USD price per token, from which every pair's rate follows. The tokens are the registry's
 * (src/adapters/chain/registry.ts) on those networks, so the addresses the devnet puts code at
 * and the addresses the aggregator quotes are the ones Slipway's token list already names.
 * `npm run devnet` writes the same rates into the router (scripts/devnet/chain.ts), which
 * enforces them on chain: a quote and its execution cannot disagree.
 */
import { lookupChain, type TokenDef } from '../../adapters/chain/registry'

/** LI.FI's address for a chain's native coin */
export const NATIVE_TOKEN = '0x0000000000000000000000000000000000000000'
/** the other spelling of the native coin some clients send (LI.FI accepts it too) */
const NATIVE_ALIAS = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee'

/**
 * registry ids of the networks the devnet serves swaps on: its second node stands in for
 * `gnosis-chiado` (chain id 10200), a testnet, so the sandbox aggregator quotes testnet chain ids
 * (`isTestnet: true` quotes); it quotes no mainnet
 */
export const SWAP_NETWORKS = ['gnosis-chiado'] as const

/** fixed USD prices by symbol (decimal text); a token without one is not quoted */
const PRICE_USD: Record<string, string> = { xDAI: '1', USDC: '1', EURe: '1.08' }

export interface MarketToken {
  chainId: number
  /** LI.FI's spelling: NATIVE_TOKEN for the native coin */
  address: string
  symbol: string
  name: string
  decimals: number
  priceUSD: string
}

/** The tokens quoted on one chain id (empty for a chain the sandbox does not serve). */
export function marketTokens(chainId: number): MarketToken[] {
  for (const id of SWAP_NETWORKS) {
    const network = lookupChain(id)?.network
    if (network?.chainId !== chainId) continue
    return network.tokens.filter((tk) => PRICE_USD[tk.symbol] !== undefined).map((tk: TokenDef) => ({
      chainId, address: tk.address ?? NATIVE_TOKEN, symbol: tk.symbol, name: tk.name, decimals: tk.decimals, priceUSD: PRICE_USD[tk.symbol]!,
    }))
  }
  return []
}

/** Every chain id the sandbox quotes on. */
export function marketChainIds(): number[] {
  return SWAP_NETWORKS.map((id) => lookupChain(id)?.network.chainId).filter((c): c is number => typeof c === 'number')
}

/** A token by address (either native spelling) or symbol, case-insensitive, on one chain. */
export function findToken(chainId: number, token: string): MarketToken | undefined {
  const wanted = token.toLowerCase() === NATIVE_ALIAS ? NATIVE_TOKEN : token.toLowerCase()
  return marketTokens(chainId).find((tk) => tk.address.toLowerCase() === wanted || tk.symbol.toLowerCase() === wanted)
}

/** Scaled integer of a decimal text: ("1.08", 6) → 1080000n. */
function scaled(text: string, places: number): bigint {
  const [whole, frac = ''] = text.split('.')
  return BigInt(whole! + frac.padEnd(places, '0').slice(0, places))
}

/**
 * The rate from one token to another as `amountOut = amountIn * num / den` in smallest units:
 * the USD value in, divided by the price of the token out. The router holds the same fraction.
 */
export function rateOf(from: MarketToken, to: MarketToken): { num: bigint; den: bigint } {
  return {
    num: scaled(from.priceUSD, 6) * 10n ** BigInt(to.decimals),
    den: scaled(to.priceUSD, 6) * 10n ** BigInt(from.decimals),
  }
}

/** Every ordered pair of distinct tokens on a chain, with its rate. */
export function marketPairs(chainId: number): Array<{ from: MarketToken; to: MarketToken; num: bigint; den: bigint }> {
  const tokens = marketTokens(chainId)
  return tokens.flatMap((from) => tokens.filter((to) => to !== from).map((to) => ({ from, to, ...rateOf(from, to) })))
}
