/**
 * Which market price each holding takes: the provider's coin id (CoinGecko's ids) of each
 * chain's native coin and of the tokens seeded in the registry (src/adapters/chain/registry.ts),
 * by their mainnet address. A tenant's custom token (`chains.customTokens`) has no price, even
 * if its symbol is `USDC`: a symbol is anyone's to choose, an address is not. Its balance is
 * recorded and listed as unpriced, and left out of the totals.
 *
 * No stablecoin is pegged: USDC, USDT and the euro coins are priced by the provider like any
 * coin. Flow EVM's bridged `USDC.e` takes USD Coin's price.
 */
import { CHAINS } from '../tokens'

/** the native coin of each family chain */
const NATIVE: Readonly<Record<string, string>> = {
  ethereum: 'ethereum', arbitrum: 'ethereum', optimism: 'ethereum', base: 'ethereum',
  polygon: 'polygon-ecosystem-token', bsc: 'binancecoin', avalanche: 'avalanche-2', celo: 'celo',
  flowevm: 'flow', gnosis: 'xdai', solana: 'solana',
}

/** the seeded tokens, by their registry symbol */
const TOKENS: Readonly<Record<string, string>> = {
  'USDC': 'usd-coin', 'USDC.e': 'usd-coin', 'USDT': 'tether', 'EURC': 'euro-coin',
  'cUSD': 'celo-dollar', 'cEUR': 'celo-euro', 'EURe': 'monerium-eur-money',
}

/** `<chain>|<address key>` of every seeded mainnet token → coin id */
const BY_ADDRESS = new Map<string, string>()
for (const chain of CHAINS) {
  for (const tk of chain.mainnet.tokens) {
    const id = tk.address && TOKENS[tk.symbol]
    if (id) BY_ADDRESS.set(`${chain.id}|${addressKey(chain.family, tk.address!)}`, id)
  }
}

function addressKey(family: string, address: string) {
  // EVM addresses compare without case; Solana's base58 is case-sensitive
  return family === 'evm' ? address.toLowerCase() : address
}

/** The coin id a mainnet holding is priced by: `token` null for the native coin. Null when Slipway does not price it. */
export function coinIdOf(chain: string, token: string | null): string | null {
  if (token === null) return NATIVE[chain] ?? null
  const family = CHAINS.find((c) => c.id === chain)?.family
  return family ? BY_ADDRESS.get(`${chain}|${addressKey(family, token)}`) ?? null : null
}

/** Every coin id Slipway prices: asked of the provider together, one call for all. */
export const PRICED_COINS: readonly string[] = [...new Set([...Object.values(NATIVE), ...BY_ADDRESS.values()])].sort()
