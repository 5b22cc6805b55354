/** Request and answer schemas of the bank ramp's proven addresses (address ownership challenges). */
import { t } from 'elysia'
import { Environment, IsTestnet } from './model-formats'

export const AddressChallengeBody = t.Object({
  chain: t.String({ minLength: 1, maxLength: 32, description: 'family chain id of the address (`ethereum`, `solana`, …), one the bank ramp offers' }),
  address: t.String({ minLength: 1, maxLength: 128 }),
  isTestnet: IsTestnet,
}, { examples: [{ chain: 'ethereum', address: '0x71C7656EC7ab88b098defB751B7401B5f6d8976F', isTestnet: true }] })
export type AddressChallengeBody = typeof AddressChallengeBody.static

export const AddressChallengeView = t.Object({
  challengeId: t.String(),
  environment: Environment,
  chain: t.String(),
  address: t.String({ description: 'as Slipway writes it (EIP-55 checksum on EVM chains)' }),
  message: t.String({ description: 'sign exactly this text: EIP-191 `personal_sign` on EVM chains; ed25519 over its UTF-8 bytes on Solana' }),
  expiresAt: t.String({ format: 'date-time' }),
}, { title: 'RampAddressChallenge' })

export const AddressVerifyBody = t.Object({
  challengeId: t.String({ format: 'uuid' }),
  signature: t.String({ minLength: 1, maxLength: 200, description: 'EVM: 65-byte hex; Solana: 64-byte ed25519 signature, base58 or base64' }),
  isTestnet: IsTestnet,
}, { examples: [{ challengeId: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f', signature: '0x…', isTestnet: true }] })
export type AddressVerifyBody = typeof AddressVerifyBody.static

export const ProvenAddressView = t.Object({
  id: t.String(),
  environment: Environment,
  chain: t.String(),
  address: t.String(),
  provenAt: t.String({ format: 'date-time' }),
}, { title: 'RampProvenAddress' })

export const AddressIdParams = t.Object({ id: t.String({ format: 'uuid' }) })
