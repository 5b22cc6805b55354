/** The chain family implementations, by the family of the wallet's chain. */
import type { Family } from '../../../adapters/chain/port'
import { evmFamily } from './evm'
import type { ChainFamily } from './port'
import { solanaFamily } from './solana'

const FAMILIES: Record<Family, ChainFamily> = { evm: evmFamily, solana: solanaFamily }

export const familyOf = (family: Family): ChainFamily => FAMILIES[family]
