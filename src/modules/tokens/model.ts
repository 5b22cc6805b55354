/** The tokens module's request and answer schemas; the service takes `typeof X.static`. */
import { t } from 'elysia'
import { integer } from '../../http/integer'

export const ChainEntry = t.Object({
  id: t.String({ description: 'registry id: the family chain id for mainnet (`ethereum`), the testnet id otherwise (`sepolia`)' }),
  name: t.String(),
  chainId: t.Union([integer(), t.Null()], { description: 'EIP-155 chain id; null for Solana' }),
  family: t.String({ description: 'family chain id used in wallet, balance and transaction requests' }),
  isTestnet: t.Boolean(),
  nativeToken: t.Object({ symbol: t.String(), name: t.String(), decimals: integer() }),
}, { title: 'ChainEntry' })

export const Token = t.Object({
  chain: t.String({ description: 'family chain id' }),
  network: t.String({ description: 'registry id of the network' }),
  isTestnet: t.Boolean(),
  symbol: t.String(),
  name: t.String(),
  decimals: integer(),
  address: t.Union([t.String(), t.Null()], { description: 'contract (EVM) or mint (Solana); null for the native coin' }),
  isNative: t.Boolean(),
}, { title: 'Token' })

export const ChainsQuery = t.Object({ isTestnet: t.Optional(t.Boolean({ description: 'only mainnets (`false`) or only testnets (`true`)' })) })
export type ChainsQuery = typeof ChainsQuery.static

export const TokensQuery = t.Object({ isTestnet: t.Optional(t.Boolean()) })
export type TokensQuery = typeof TokensQuery.static

export const ChainParams = t.Object({ chain: t.String({ maxLength: 64, description: 'family chain id or registry id' }) })

export const Chains = t.Object({ chains: t.Array(ChainEntry) })
export const Tokens = t.Object({ tokens: t.Array(Token) })
export const ChainTokens = t.Object({ chain: t.String(), network: t.String(), isTestnet: t.Boolean(), tokens: t.Array(Token) })
