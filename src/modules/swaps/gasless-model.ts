/** Schemas of the gasless swap routes (gasless-routes.ts) and the quote's `gasless` block. */
import { t } from 'elysia'
import { integer } from '../../http/integer'
import { prose } from '../../http/prose'
import { Created } from '../transactions'

const QuoteId = t.String({ minLength: 1, maxLength: 256, description: 'a quote of a euro stablecoin to the native coin on gnosis whose answer carried a `gasless` block, within 10 minutes' })
const EXAMPLE_QUOTE = '0x3f1c5d6e7a800b6f4c1e8a524d7e9b3a2f1c5d6e7a800b6f4c1e8a524d7e9b3a'

export const GaslessQuoteBody = t.Object({ quoteId: QuoteId }, { additionalProperties: false, examples: [{ quoteId: EXAMPLE_QUOTE }] })
export type GaslessQuoteBody = typeof GaslessQuoteBody.static

export const BroadcastGaslessBody = t.Object({
  quoteId: QuoteId,
  signature: t.String({
    maxLength: 132,
    description: prose`
      the wallet's EIP-712 signature of \`typedData\` as \`POST /v1/swap/sign-permit\` answered it:
      65 bytes as 0x-prefixed hex (r ‖ s ‖ v), as viem's signTypedData or eth_signTypedData_v4
      answer`,
  }),
}, {
  additionalProperties: false,
  examples: [{ quoteId: EXAMPLE_QUOTE, signature: '0x6b1f0c3e8a5d2b7f9e4c1a0d3b6e9f2c5a8d1e4b7c0f3a6d9e2b5c8f1a4d7e0b2c5f8a1d4e7b0c3f6a9d2e5b8c1f4a7d0e3b6c9f2a5d8e1b4c7f0a3d6e9b2c5f1b' }],
})
export type BroadcastGaslessBody = typeof BroadcastGaslessBody.static

const Digits = t.String({ pattern: '^[0-9]+$' })
const Address = t.String({ pattern: '^0x[0-9a-fA-F]{40}$' })

export const PermitDomain = t.Object({ name: t.String(), version: t.String(), chainId: integer(), verifyingContract: Address })

/** The quote's `gasless` block (spec "Swap quote response"). */
export const GaslessQuote = t.Object({
  supported: t.Boolean(),
  permitRequired: t.Boolean({ description: 'the owner signs an EIP-2612 permit for the router (POST /v1/swap/sign-permit)' }),
  estimatedGasCost: t.String({ description: 'the relayer\'s gas at the node\'s max fee per gas, wei; repaid in the stablecoin' }),
  estimatedGasCostXDAI: t.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]*[1-9])?$', description: '`estimatedGasCost` in xDAI (decimal text)' }),
  currentNonce: integer({ description: 'the token\'s `nonces(owner)`: the nonce the permit signs' }),
  permitDomain: PermitDomain,
}, {
  title: 'SwapGasless',
  description: prose`
    present only when gasless swaps are enabled on the deployment and the quote is a euro stablecoin
    with a permit (EURe) to the native coin on gnosis or, for a testnet quote, gnosis-chiado (both
    chains \`gnosis\`, \`toToken\` the zero address); then \`POST /v1/swap/sign-permit\` and \`execute-gasless\` or \`broadcast-gasless\`
    swap it without gas`,
})

export const PermitTypedData = t.Object({
  quoteId: t.String(),
  walletId: t.String(),
  owner: Address,
  spender: t.String({ description: 'the router' }),
  value: Digits,
  nonce: integer(),
  deadline: integer({ description: 'Unix seconds: the quote\'s expiry' }),
  relayerFee: t.String({ description: 'kept by the router for the relayer out of `value`, smallest unit of the stablecoin' }),
  minAmountOut: t.String({ description: 'the least native coin (wei) the wallet receives for `value - relayerFee`' }),
  estimatedGasCost: t.String({ description: 'wei' }),
  typedData: t.Object({
    domain: PermitDomain,
    types: t.Object({ Permit: t.Array(t.Object({ name: t.String(), type: t.String() })) }),
    primaryType: t.Literal('Permit'),
    message: t.Object({ owner: Address, spender: t.String(), value: Digits, nonce: Digits, deadline: Digits }),
  }, { description: 'EIP-712 typed data of the EIP-2612 permit: sign with eth_signTypedData_v4 (or viem\'s signTypedData)' }),
}, { title: 'SwapPermit' })

export const GaslessCreated = t.Object({
  ...Created.properties,
  quoteId: t.String(),
  type: t.Literal('swap'),
  gasless: t.Literal(true),
  relayer: Address,
  relayerFee: t.String({ pattern: '^[0-9]{1,78}$', description: 'the stablecoin kept by the router for the relayer, smallest unit' }),
  minAmountOut: t.String({ pattern: '^[0-9]{1,78}$', description: 'the least native coin the wallet receives, in wei' }),
}, { title: 'SwapGaslessCreated' })
