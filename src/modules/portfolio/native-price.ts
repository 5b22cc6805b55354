/**
 * The USD price of a chain's native coin as the portfolio prices it (prices.ts: the provider's,
 * kept at most PRICE_REFRESH_MS, the last stored one while the provider is down): what gas
 * sponsorship converts its costs with. Null when Slipway has no price for the coin.
 */
import type { Deps } from '../../deps'
import { coinIdOf } from './coins'
import { currentPrices } from './prices'

/** `chain`: the family chain id (`ethereum`, `base`); a testnet's coin takes its mainnet's price. */
export async function nativeUsdPrice(deps: Deps, chain: string): Promise<{ usd: string; asOf: number } | null> {
  const id = coinIdOf(chain, null)
  if (!id) return null
  const p = (await currentPrices(deps)).get(id)
  return p ? { usd: p.usd, asOf: p.asOf } : null
}
