/** The key a wallet's address is looked up by: EVM addresses in lower case, Solana's as they are (base58 is case-sensitive). */
import type { Family } from '../../adapters/chain/port'

export function addressKeyOf(family: Family, address: string): string {
  return family === 'evm' ? address.toLowerCase() : address
}
