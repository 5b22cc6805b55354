/**
 * What the bank ramp offers, in Slipway's words and the partner's: EUR in, a dollar
 * stablecoin out on the partner's networks (its `Network` names per environment), limited
 * to the chains the tenant has enabled.
 */
import type { StoredSettings } from '../tenants'
import { chainEnabled } from '../tokens'
import type { RampEnv } from './schema'

const NETWORKS: Record<string, Record<RampEnv, string>> = {
  ethereum: { production: 'Ethereum', sandbox: 'EthereumTestSepolia' },
  polygon: { production: 'PolygonPos', sandbox: 'PolygonTestAmoy' },
  base: { production: 'Base', sandbox: 'BaseTestSepolia' },
  celo: { production: 'Celo', sandbox: 'CeloTestSepolia' },
  gnosis: { production: 'Gnosis', sandbox: 'GnosisTestChiado' },
  flowevm: { production: 'FlowEvm', sandbox: 'FlowEvmTest' },
  solana: { production: 'Solana', sandbox: 'SolanaDevnet' },
}
const CRYPTO: Record<string, Record<RampEnv, string>> = { USDC: { production: 'USDC', sandbox: 'USDC_TEST' } }
export const FIAT = ['EUR']

export function offered(settings: StoredSettings, env: RampEnv) {
  const networks = Object.keys(NETWORKS).filter((c) => chainEnabled(settings, c))
  return Object.entries(CRYPTO).map(([currency, codes]) => ({ currency, rampCurrency: codes[env], networks }))
}

export function availablePairs(settings: StoredSettings, env: RampEnv) {
  return offered(settings, env).flatMap((c) => c.networks.map((network) => ({ fiatCurrency: 'EUR', cryptoCurrency: c.currency, network })))
}

export const partnerNetwork = (chain: string, env: RampEnv) => NETWORKS[chain]?.[env]
export const partnerCrypto = (currency: string, env: RampEnv) => CRYPTO[currency]?.[env]

/** Slipway's chain id for a partner network name; the partner's name when unknown. */
export function chainOfNetwork(network: string | undefined): string | null {
  if (!network) return null
  for (const [chain, names] of Object.entries(NETWORKS)) if (names.production === network || names.sandbox === network) return chain
  return network
}

export function currencyOfCrypto(code: string | undefined): string | null {
  if (!code) return null
  for (const [currency, codes] of Object.entries(CRYPTO)) if (codes.production === code || codes.sandbox === code) return currency
  return code
}
