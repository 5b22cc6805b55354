/**
 * The wallets module's request and answer schemas. The schema is the type: services take
 * `typeof X.static`. This file imports no chain library, so the routes stay light until
 * a wallet request loads the services (see handle.ts).
 */
import { t } from 'elysia'
import { integer } from '../../http/integer'
import { prose } from '../../http/prose'
import { LimitOffsetQuery } from '../../http/schemas'

/** How exported keys are encrypted (see keys.ts encryptToX25519). */
export const EXPORT_SCHEME = 'x25519-hkdf-sha256-aes-256-gcm'

const ChainName = t.String({ minLength: 1, maxLength: 64, description: 'family chain id (`ethereum`, `solana`...) or a testnet registry id (`sepolia`, `solana-devnet`...)' })
const Label = t.String({ minLength: 1, maxLength: 100 })

export const Wallet = t.Object({
  id: t.String({ format: 'uuid' }),
  userId: t.String({ format: 'uuid' }),
  chain: t.String({ description: 'family chain id', examples: ['ethereum'] }),
  address: t.String(),
  label: t.Union([t.String(), t.Null()], { description: 'from the `name` request field' }),
  walletType: t.Union([t.Literal('managed'), t.Literal('imported'), t.Literal('client')], {
    description: prose`
      \`managed\`: created here; \`imported\`: key or mnemonic imported; \`client\`: non-custodial
      address registered with a signature`,
  }),
  isPrimary: t.Boolean(),
  isWatchOnly: t.Boolean(),
  isTestnet: t.Boolean(),
  keyManagementScheme: t.Union([t.Literal('aes_single'), t.Literal('sss_2of2_akv'), t.Literal('client_side'), t.Literal('client_side_pending'), t.Literal('mpc_tss')]),
  createdAt: t.String({
    format: 'date-time',
    description: prose`
      when the wallet was made. The spec writes it both \`createdAt\` and \`created_at\`; every field
      of the API is camelCase, so wallets answer \`createdAt\` only`,
  }),
  updatedAt: t.String({ format: 'date-time' }),
}, { title: 'Wallet' })

export const WalletId = t.Object({ id: t.String({ maxLength: 64, description: 'wallet id (UUID)' }) })

// Custodial wallets

export const CreateWallet = t.Object({
  chain: ChainName,
  name: t.Optional(Label),
  isPrimary: t.Optional(t.Boolean({ default: false })),
  isTestnet: t.Optional(t.Boolean({ default: false })),
})
export type CreateWallet = typeof CreateWallet.static

export const ImportWallet = t.Object({
  chain: ChainName,
  privateKey: t.Optional(t.String({ minLength: 1, maxLength: 1024, description: 'EVM: 32-byte hex; Solana: base58 secret key (64 or 32 bytes) or the JSON byte array of solana-keygen' })),
  mnemonic: t.Optional(t.String({ minLength: 1, maxLength: 1024, description: 'BIP-39 English mnemonic' })),
  accountIndex: t.Optional(integer({ minimum: 0, maximum: 2_147_483_647, description: 'mnemonic imports only, default 0. EVM m/44\'/60\'/0\'/0/{i}; Solana m/44\'/501\'/{i}\'/0\'' })),
  name: t.Optional(Label),
  isPrimary: t.Optional(t.Boolean({ default: false })),
  isTestnet: t.Optional(t.Boolean({ default: false })),
})
export type ImportWallet = typeof ImportWallet.static

export const ListWalletsQuery = t.Object({
  ...LimitOffsetQuery.properties,
  chain: t.Optional(t.String({ maxLength: 64, description: 'a family id (`ethereum`: mainnet and testnet) or a testnet\'s registry id (`sepolia`: that testnet only)' })),
  isTestnet: t.Optional(t.Boolean()),
})
export type ListWalletsQuery = typeof ListWalletsQuery.static

export const SetPrimary = t.Optional(t.Object({ isPrimary: t.Optional(t.Boolean({ default: true, description: '`false` unsets it' })) }))

export const UserWalletsQuery = t.Object({ tenantId: t.Optional(t.String({ maxLength: 64, description: 'platform admins: the tenant to act in' })) })

// Balances

const Amount = {
  balance: t.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]*[1-9])?$', description: 'amount formatted with the token\'s decimals (exact): decimal text without trailing zeros' }),
  rawBalance: t.String({ description: 'integer amount in the smallest unit' }),
  decimals: integer(),
}
const TokenBalance = t.Object({ symbol: t.String(), name: t.String(), address: t.String(), ...Amount })

export const Balance = t.Object({
  walletId: t.String(),
  address: t.String(),
  chain: t.String(),
  isTestnet: t.Boolean(),
  nativeBalance: t.Object({ symbol: t.String(), name: t.String(), ...Amount }),
  tokens: t.Array(TokenBalance),
  lastUpdated: t.String({ format: 'date-time', description: 'when the chain was read (answers are cached up to 15 seconds)' }),
}, { title: 'Balance' })

export const AggregateBalances = t.Object({
  chains: t.Array(t.Object({
    chain: t.String(),
    isTestnet: t.Boolean(),
    walletCount: integer(),
    nativeBalance: t.Object({ symbol: t.String(), ...Amount }),
    tokens: t.Array(TokenBalance),
    lastUpdated: t.String(),
  })),
  total: t.Array(t.Object({ symbol: t.String(), ...Amount }), { description: 'mainnet amounts summed per symbol across chains' }),
  unavailable: t.Array(t.Object({ chain: t.String(), isTestnet: t.Boolean(), message: t.String() }), { description: 'networks whose RPC could not be read; left out of the sums' }),
  walletCount: integer(),
})

// Key export and custody migration

export const Envelope = t.Object({
  scheme: t.Literal(EXPORT_SCHEME),
  serverPublicKey: t.String({ description: 'server\'s ephemeral X25519 public key, base64' }),
  nonce: t.String({ description: '12-byte AES-GCM nonce, base64' }),
  ciphertext: t.String({ description: 'AES-256-GCM ciphertext followed by its 16-byte tag, base64' }),
  aad: t.String({ description: 'associated data: the wallet id' }),
}, {
  title: 'KeyEnvelope',
  description: prose`
    X25519(server ephemeral, client key) → HKDF-SHA256(salt = serverPublicKey ‖ clientPublicKey,
    info "slipway-wallet-export-v1", 32 bytes) → AES-256-GCM(nonce, aad = wallet id).`,
})
export const KeyFormat = t.Union([t.Literal('hex'), t.Literal('base58-secret-key')], { description: 'EVM: `0x` + 64 hex; Solana: base58 of the 64-byte secret key (seed ‖ public key)' })

export const RequestExportToken = t.Object({ walletId: t.String({ maxLength: 64 }), password: t.String({ minLength: 1, maxLength: 256 }) })
export type RequestExportToken = typeof RequestExportToken.static
export const ExportToken = t.Object({ exportToken: t.String(), walletId: t.String(), expiresAt: t.String(), expiresIn: integer() })

export const ExportKey = t.Object({
  walletId: t.String({ maxLength: 64 }),
  exportToken: t.String({ minLength: 1, maxLength: 128 }),
  clientPublicKey: t.String({ minLength: 1, maxLength: 128, description: 'ephemeral X25519 public key, base64 or hex' }),
})
export type ExportKey = typeof ExportKey.static
export const ExportedKey = t.Object({ walletId: t.String(), chain: t.String(), address: t.String(), keyFormat: KeyFormat, envelope: Envelope })

export const RegisterDevice = t.Object({
  publicKey: t.String({ minLength: 1, maxLength: 128, description: 'the device\'s X25519 public key (32 bytes, base64 or hex)' }),
  name: t.Optional(Label),
  password: t.String({ minLength: 1, maxLength: 256, description: 're-confirms the user: keys are handed only to devices registered with the password' }),
})
export type RegisterDevice = typeof RegisterDevice.static
export const Device = t.Object({ deviceId: t.String(), name: t.Union([t.String(), t.Null()]), publicKey: t.String(), createdAt: t.String() })

export const MigrationChallengeQuery = t.Object({ walletId: t.String({ maxLength: 64 }), deviceId: t.String({ maxLength: 64 }) })
export type MigrationChallengeQuery = typeof MigrationChallengeQuery.static
export const MigrationChallenge = t.Object({
  walletId: t.String(),
  deviceId: t.String(),
  challengeId: t.String(),
  message: t.String(),
  expiresAt: t.String(),
  keyFormat: KeyFormat,
  envelope: Envelope,
})

export const ConfirmClientCustody = t.Object({ walletId: t.String({ maxLength: 64 }), challengeId: t.String({ maxLength: 64 }), signature: t.String({ minLength: 1, maxLength: 256 }) })
export type ConfirmClientCustody = typeof ConfirmClientCustody.static

export const CancelMigration = t.Object({ walletId: t.String({ maxLength: 64 }) })
export type CancelMigration = typeof CancelMigration.static

// Non-custodial wallets

export const ClientChallengeQuery = t.Object({ chain: ChainName, address: t.String({ minLength: 1, maxLength: 128 }), isTestnet: t.Optional(t.Boolean()) })
export type ClientChallengeQuery = typeof ClientChallengeQuery.static
export const ClientChallenge = t.Object({
  challengeId: t.String(),
  message: t.String({ description: 'sign exactly this text' }),
  chain: t.String(),
  isTestnet: t.Boolean(),
  address: t.String(),
  expiresAt: t.String(),
})

export const RegisterClientWallet = t.Object({
  challengeId: t.String({ maxLength: 64 }),
  signature: t.String({ minLength: 1, maxLength: 256 }),
  name: t.Optional(Label),
  isPrimary: t.Optional(t.Boolean({ default: false })),
})
export type RegisterClientWallet = typeof RegisterClientWallet.static
