/**
 * Chains and tokens as a quote names them (rules 1 and 2 of the spec's quote): the spec's
 * swap chains enabled for the tenant, tokens from the registry of the chain's network (the
 * zero address is an EVM chain's native coin; on Solana both native SOL forms are), chain ids
 * as answered (Solana 1399811149 mainnet, 1399811150 devnet) and as the aggregator knows them.
 */
import { LIFI_SOLANA_CHAIN_ID } from '../../adapters/swap-aggregator/port'
import { BadRequestError } from '../../lib/errors'
import type { StoredSettings } from '../tenants'
import { activeTokens, chainByFamily, chainEnabled, type ChainDef, type TokenDef } from '../tokens'
import { SWAP_CHAINS } from './model'

export const SOLANA_MAINNET_ID = 1399811149
export const SOLANA_DEVNET_ID = 1399811150
const ZERO = /^0x0{40}$/i
const NATIVE_SOL = new Set(['So11111111111111111111111111111111111111112', '11111111111111111111111111111111'])

export function swapChain(settings: StoredSettings, id: string): ChainDef {
  const chain = (SWAP_CHAINS as readonly string[]).includes(id) ? chainByFamily(id) : undefined
  if (!chain || !chainEnabled(settings, chain.id)) throw new BadRequestError(`Unsupported chain: ${id}`)
  return chain
}

export const isNative = (chain: ChainDef, address: string) => (chain.family === 'evm' ? ZERO.test(address) : NATIVE_SOL.has(address))

/** The token (with `address` as the request gave it) in the registry of the chain's network (mainnet, or testnet for `isTestnet`), or 400 `Token not found`. */
export function registryToken(settings: StoredSettings, chain: ChainDef, address: string, isTestnet = false): TokenDef & { address: string; native: boolean } {
  if (isNative(chain, address)) return { ...chain.nativeToken, address, native: true }
  const key = chain.family === 'evm' ? address.toLowerCase() : address
  const network = isTestnet ? chain.testnet : chain.mainnet
  const found = activeTokens(settings, chain, network).find((tk) => tk.address !== null && (chain.family === 'evm' ? tk.address.toLowerCase() : tk.address) === key)
  if (!found) {
    const where = isTestnet ? `${network.id} (${chain.id} testnet)` : `${chain.id} mainnet`
    throw new BadRequestError(`Token not found: ${address} on ${where}. GET /v1/tokens/chain/${network.id} lists the tokens available`)
  }
  return { ...found, address, native: false }
}

/** Whether the token the aggregator would deliver is the one asked for (native forms are one token). */
export function sameToken(chain: ChainDef, a: string, b: string) {
  if (isNative(chain, a) || isNative(chain, b)) return isNative(chain, a) && isNative(chain, b)
  return chain.family === 'evm' ? a.toLowerCase() === b.toLowerCase() : a === b
}

/** The chain id answered to clients. */
export const answeredChainId = (chain: ChainDef, isTestnet = false) =>
  chain.family === 'solana' ? (isTestnet ? SOLANA_DEVNET_ID : SOLANA_MAINNET_ID) : (isTestnet ? chain.testnet.chainId : chain.mainnet.chainId)!

/** The chain id the aggregator knows (LI.FI's own for Solana; a testnet's EIP-155 id for `isTestnet`). */
export const aggregatorChainId = (chain: ChainDef, isTestnet = false) =>
  (chain.family === 'solana' ? LIFI_SOLANA_CHAIN_ID : (isTestnet ? chain.testnet.chainId! : chain.mainnet.chainId!))
