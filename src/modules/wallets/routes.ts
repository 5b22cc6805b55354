/**
 * Wallets group, and `GET /v1/users/{id}/wallets`. Every wallet route acts on the
 * caller's own wallets; another user's or another tenant's wallet id answers 404.
 */
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { errorResponses, OffsetPagination } from '../../http/schemas'
import { security } from '../../http/security'
import { lazy } from '../../lib/lazy'
import { page } from '../../http/schemas'
import type { BalanceCache } from './balance-cache'
import { EXPORT_SCHEME, Wallet } from './view'

/** The wallet services, with the chain libraries they use, are loaded by the first wallet request. */
const impl = lazy(() => import('./impl'))

const WalletId = t.Object({ id: t.String({ maxLength: 64, description: 'wallet id (UUID)' }) })
const ChainName = t.String({ minLength: 1, maxLength: 64, description: 'family chain id (`ethereum`, `solana`...) or a testnet registry id (`sepolia`, `solana-devnet`...)' })
const Label = t.String({ minLength: 1, maxLength: 100 })

const Amount = {
  balance: t.String({ description: 'amount formatted with the token\'s decimals (exact)' }),
  rawBalance: t.String({ description: 'integer amount in the smallest unit' }),
  decimals: t.Integer(),
}
const TokenBalance = t.Object({ symbol: t.String(), name: t.String(), address: t.String(), ...Amount })
const Balance = t.Object({
  walletId: t.String(),
  address: t.String(),
  chain: t.String(),
  isTestnet: t.Boolean(),
  nativeBalance: t.Object({ symbol: t.String(), name: t.String(), ...Amount }),
  tokens: t.Array(TokenBalance),
  lastUpdated: t.String({ format: 'date-time', description: 'when the chain was read (answers are cached up to 15 seconds)' }),
}, { title: 'Balance' })

const Envelope = t.Object({
  scheme: t.Literal(EXPORT_SCHEME),
  serverPublicKey: t.String({ description: 'server\'s ephemeral X25519 public key, base64' }),
  nonce: t.String({ description: '12-byte AES-GCM nonce, base64' }),
  ciphertext: t.String({ description: 'AES-256-GCM ciphertext followed by its 16-byte tag, base64' }),
  aad: t.String({ description: 'associated data: the wallet id' }),
}, { title: 'KeyEnvelope', description: 'X25519(server ephemeral, client key) → HKDF-SHA256(salt = serverPublicKey ‖ clientPublicKey, info "slipway-wallet-export-v1", 32 bytes) → AES-256-GCM(nonce, aad = wallet id).' })
const KeyFormat = t.Union([t.Literal('hex'), t.Literal('base58-secret-key')], { description: 'EVM: `0x` + 64 hex; Solana: base58 of the 64-byte secret key (seed ‖ public key)' })

/** `balances` is the app's balance cache (made in src/services.ts). */
export function walletRoutes(deps: Deps, balances: BalanceCache) {
  return new Elysia({ prefix: '/v1/wallets', detail: { tags: ['Wallets'] } })
    .use(security(deps))
    .post('/', async ({ body, ctx, set }) => {
      const wallet = await (await impl()).service.createWallet(ctx, body)
      set.status = 201
      return wallet
    }, {
      auth: 'any',
      errorStyle: 'detail',
      body: t.Object({
        chain: ChainName,
        name: t.Optional(Label),
        isPrimary: t.Optional(t.Boolean({ default: false })),
        isTestnet: t.Optional(t.Boolean({ default: false })),
      }),
      response: { 201: Wallet, ...errorResponses('detail', 400, 401, 403, 409) },
      detail: {
        operationId: 'createWallet',
        summary: 'Create a custodial wallet',
        description: 'The service generates and keeps the key (`keyManagementScheme: aes_single`). A testnet registry id stores the wallet under its family chain with `isTestnet: true`. Errors are `{ detail }`: 400 for an unsupported chain or a tenant in `mpc` / `non_custodial` mode; 409 with `code: PRIMARY_WALLET_EXISTS` when `isPrimary` is asked and a primary wallet exists for that chain and network type (switch with `PATCH /v1/wallets/{id}/set-primary`); 409 if the address is already registered.',
      },
    })
    .post('/import', async ({ body, ctx, set }) => {
      const wallet = await (await impl()).service.importWallet(ctx, body)
      set.status = 201
      return wallet
    }, {
      auth: 'any',
      errorStyle: 'detail',
      body: t.Object({
        chain: ChainName,
        privateKey: t.Optional(t.String({ minLength: 1, maxLength: 1024, description: 'EVM: 32-byte hex; Solana: base58 secret key (64 or 32 bytes) or the JSON byte array of solana-keygen' })),
        mnemonic: t.Optional(t.String({ minLength: 1, maxLength: 1024, description: 'BIP-39 English mnemonic' })),
        accountIndex: t.Optional(t.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'mnemonic imports only, default 0. EVM m/44\'/60\'/0\'/0/{i}; Solana m/44\'/501\'/{i}\'/0\'' })),
        name: t.Optional(Label),
        isPrimary: t.Optional(t.Boolean({ default: false })),
        isTestnet: t.Optional(t.Boolean({ default: false })),
      }),
      response: { 201: Wallet, ...errorResponses('detail', 400, 401, 403, 409) },
      detail: {
        operationId: 'importWallet',
        summary: 'Import a wallet from a private key or a BIP-39 mnemonic',
        description: 'Exactly one of `privateKey` or `mnemonic`. The key is kept like a created wallet\'s (`walletType: imported`, `aes_single`). Errors as for create; a key or mnemonic is never echoed in an error.',
      },
    })
    .get('/', async ({ query, ctx }) => {
      const limit = query.limit ?? 50
      const offset = query.offset ?? 0
      const { rows, total } = await (await impl()).service.listWallets(ctx, { limit, offset, chain: query.chain, isTestnet: query.isTestnet })
      return page(rows, total, limit, offset)
    }, {
      auth: 'any',
      query: t.Object({
        limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 50 })),
        offset: t.Optional(t.Integer({ minimum: 0, default: 0 })),
        chain: t.Optional(t.String({ maxLength: 64, description: 'a family id (`ethereum`: mainnet and testnet) or a testnet\'s registry id (`sepolia`: that testnet only)' })),
        isTestnet: t.Optional(t.Boolean()),
      }),
      response: { 200: t.Object({ data: t.Array(Wallet), pagination: OffsetPagination }), ...errorResponses('standard', 400, 401) },
      detail: { operationId: 'listWallets', summary: 'List one\'s wallets', description: 'Oldest first.' },
    })
    .get('/balances/aggregate', async ({ ctx }) => (await impl()).balances.aggregateBalances(ctx, balances), {
      auth: 'any',
      response: {
        200: t.Object({
          chains: t.Array(t.Object({ chain: t.String(), isTestnet: t.Boolean(), walletCount: t.Integer(), nativeBalance: t.Object({ symbol: t.String(), ...Amount }), tokens: t.Array(TokenBalance), lastUpdated: t.String() })),
          total: t.Array(t.Object({ symbol: t.String(), ...Amount }), { description: 'mainnet amounts summed per symbol across chains' }),
          unavailable: t.Array(t.Object({ chain: t.String(), isTestnet: t.Boolean(), message: t.String() }), { description: 'networks whose RPC could not be read; left out of the sums' }),
          walletCount: t.Integer(),
        }),
        ...errorResponses('standard', 401, 403, 503),
      },
      detail: {
        operationId: 'aggregateBalances',
        summary: 'Balances of all one\'s wallets, per chain and in total',
        description: 'Sums per chain and network; `total` sums mainnet amounts per token symbol (testnet coins have no value). A network that cannot be read is listed in `unavailable`; 503 only when none can be read.',
      },
    })
    .get('/client/challenge', async ({ query, ctx }) => (await impl()).custody.clientChallenge(ctx, query), {
      auth: 'any',
      rateLimit: { max: 30, windowSeconds: 60 },
      query: t.Object({ chain: ChainName, address: t.String({ minLength: 1, maxLength: 128 }), isTestnet: t.Optional(t.Boolean()) }),
      response: {
        200: t.Object({ challengeId: t.String(), message: t.String({ description: 'sign exactly this text' }), chain: t.String(), isTestnet: t.Boolean(), address: t.String(), expiresAt: t.String() }),
        ...errorResponses('standard', 400, 401, 403),
      },
      detail: {
        operationId: 'clientWalletChallenge',
        summary: 'Challenge for registering a non-custodial wallet',
        description: 'Single use, valid 5 minutes; 30 per minute per IP. Sign `message` with the wallet\'s key: EIP-191 `personal_sign` on EVM chains; ed25519 over the UTF-8 bytes on Solana (signature base58 or base64).',
      },
    })
    .post('/client', async ({ body, ctx, set }) => {
      const wallet = await (await impl()).custody.registerClientWallet(ctx, body)
      set.status = 201
      return wallet
    }, {
      auth: 'any',
      body: t.Object({
        challengeId: t.String({ maxLength: 64 }),
        signature: t.String({ minLength: 1, maxLength: 256 }),
        name: t.Optional(Label),
        isPrimary: t.Optional(t.Boolean({ default: false })),
      }),
      response: { 201: Wallet, ...errorResponses('standard', 400, 401, 403, 409) },
      detail: {
        operationId: 'registerClientWallet',
        summary: 'Register a non-custodial wallet with a signed challenge',
        description: 'The key stays on the device (`keyManagementScheme: client_side`, `walletType: client`). 400 for an unknown, used or expired challenge or a wrong signature; 409 `PRIMARY_WALLET_EXISTS` or an address already registered.',
      },
    })
    .post('/register-device', async ({ body, ctx, set }) => {
      const device = await (await impl()).custody.registerDevice(ctx, body)
      set.status = 201
      return device
    }, {
      auth: 'any',
      rateLimit: { max: 10, windowSeconds: 60 },
      body: t.Object({
        publicKey: t.String({ minLength: 1, maxLength: 128, description: 'the device\'s X25519 public key (32 bytes, base64 or hex)' }),
        name: t.Optional(Label),
        password: t.String({ minLength: 1, maxLength: 256, description: 're-confirms the user: keys are handed only to devices registered with the password' }),
      }),
      response: { 201: t.Object({ deviceId: t.String(), name: t.Union([t.String(), t.Null()]), publicKey: t.String(), createdAt: t.String() }), ...errorResponses('standard', 400, 401, 403, 422, 429) },
      detail: { operationId: 'registerDevice', summary: 'Register a device to receive a wallet key in a custody migration', description: 'Re-checks the password (422 when wrong), because a registered device is what a migration hands a key to. 10 per minute per IP.' },
    })
    .get('/migration-challenge', async ({ query, ctx }) => (await impl()).custody.migrationChallenge(ctx, query), {
      auth: 'any',
      query: t.Object({ walletId: t.String({ maxLength: 64 }), deviceId: t.String({ maxLength: 64 }) }),
      response: {
        200: t.Object({ walletId: t.String(), deviceId: t.String(), challengeId: t.String(), message: t.String(), expiresAt: t.String(), keyFormat: KeyFormat, envelope: Envelope }),
        ...errorResponses('standard', 400, 401, 404, 409),
      },
      detail: {
        operationId: 'migrationChallenge',
        summary: 'Start moving a custodial wallet to client custody',
        description: 'Hands the key over once, encrypted to the registered device\'s X25519 key (same envelope as export), and marks the wallet `client_side_pending`. The device then signs `message` with the wallet key and posts it to confirm-client-custody, which erases the service\'s copy. 409 while a migration is already pending (cancel it to start again).',
      },
    })
    .post('/confirm-client-custody', async ({ body, ctx }) => (await impl()).custody.confirmClientCustody(ctx, body), {
      auth: 'any',
      body: t.Object({ walletId: t.String({ maxLength: 64 }), challengeId: t.String({ maxLength: 64 }), signature: t.String({ minLength: 1, maxLength: 256 }) }),
      response: { 200: Wallet, ...errorResponses('standard', 400, 401, 404) },
      detail: { operationId: 'confirmClientCustody', summary: 'Confirm a custody migration', description: 'The signature over the migration challenge, made with the wallet\'s key, proves the device holds it; the service then erases its copy (`client_side`).' },
    })
    .post('/cancel-migration', async ({ body, ctx }) => (await impl()).custody.cancelMigration(ctx, body), {
      auth: 'any',
      body: t.Object({ walletId: t.String({ maxLength: 64 }) }),
      response: { 200: Wallet, ...errorResponses('standard', 400, 401, 404) },
      detail: { operationId: 'cancelMigration', summary: 'Cancel a pending custody migration', description: 'The wallet returns to `aes_single`; the challenge stops working.' },
    })
    .post('/request-export-token', async ({ body, ctx }) => (await impl()).service.requestExportToken(ctx, body), {
      auth: 'any',
      rateLimit: { max: 10, windowSeconds: 60 },
      body: t.Object({ walletId: t.String({ maxLength: 64 }), password: t.String({ minLength: 1, maxLength: 256 }) }),
      response: { 200: t.Object({ exportToken: t.String(), walletId: t.String(), expiresAt: t.String(), expiresIn: t.Integer() }), ...errorResponses('standard', 400, 401, 404, 422, 429) },
      detail: { operationId: 'requestExportToken', summary: 'Re-confirm the password to export a wallet key', description: 'A wrong password answers 422 (not 401, which would sign the user out). The token is single use, valid 5 minutes, for this wallet only. 10 per minute per IP.' },
    })
    .post('/export-key', async ({ body, ctx }) => (await impl()).service.exportKey(ctx, body), {
      auth: 'any',
      body: t.Object({ walletId: t.String({ maxLength: 64 }), exportToken: t.String({ minLength: 1, maxLength: 128 }), clientPublicKey: t.String({ minLength: 1, maxLength: 128, description: 'ephemeral X25519 public key, base64 or hex' }) }),
      response: { 200: t.Object({ walletId: t.String(), chain: t.String(), address: t.String(), keyFormat: KeyFormat, envelope: Envelope }), ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'exportKey', summary: 'Export a custodial wallet\'s private key, encrypted to the client', description: 'Spends the export token (403 when invalid, expired or used). The key is encrypted to `clientPublicKey`; see the KeyEnvelope schema for the exact construction.' },
    })
    .get('/:id', async ({ params, ctx }) => (await impl()).service.getWallet(ctx, params.id), {
      auth: 'any',
      params: WalletId,
      response: { 200: Wallet, ...errorResponses('standard', 401, 404) },
      detail: { operationId: 'getWallet', summary: 'Read one of one\'s wallets' },
    })
    .delete('/:id', async ({ params, ctx, set }) => {
      await (await impl()).service.deleteWallet(ctx, params.id)
      set.status = 204
    }, {
      auth: 'any',
      params: WalletId,
      response: { 204: t.Void({ description: 'Deleted' }), ...errorResponses('standard', 400, 401, 404) },
      detail: { operationId: 'deleteWallet', summary: 'Delete a wallet', description: 'The primary wallet cannot be deleted (400). The service\'s copy of the key is erased at once; export it first if it holds funds.' },
    })
    .get('/:id/balance', async ({ params, ctx }) => (await impl()).balances.walletBalance(ctx, params.id, balances), {
      auth: 'any',
      params: WalletId,
      response: { 200: Balance, ...errorResponses('standard', 401, 404, 503) },
      detail: { operationId: 'getWalletBalance', summary: 'Native and token balances of a wallet', description: 'Read from the chain (cached 15 seconds). 503 `ServiceUnavailableError` when the network\'s RPC cannot be reached.' },
    })
    .patch('/:id/primary', async ({ params, body, ctx }) => (await impl()).service.setPrimary(ctx, params.id, body?.isPrimary ?? true), {
      auth: 'any',
      params: WalletId,
      body: t.Optional(t.Object({ isPrimary: t.Optional(t.Boolean({ default: true, description: '`false` unsets it' })) })),
      response: { 200: Wallet, ...errorResponses('standard', 400, 401, 404) },
      detail: { operationId: 'setWalletPrimaryFlag', summary: 'Set or unset a wallet as primary', description: '`isPrimary: true` (the default) demotes the current primary of the same chain and network type atomically; `false` leaves none.' },
    })
    .patch('/:id/set-primary', async ({ params, ctx }) => (await impl()).service.setPrimary(ctx, params.id, true), {
      auth: 'any',
      params: WalletId,
      response: { 200: Wallet, ...errorResponses('standard', 401, 404) },
      detail: { operationId: 'setPrimaryWallet', summary: 'Make a wallet primary (atomic, no body)', description: 'Demotes the previous primary of the same chain and network type in the same transaction; under concurrent calls exactly one ends primary.' },
    })
}

/** `GET /v1/users/{id}/wallets`: same visibility as `GET /v1/users/{id}`. */
export function userWalletRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/users', detail: { tags: ['Users'] } })
    .use(security(deps))
    .get('/:id/wallets', async ({ params, query, ctx }) => (await impl()).service.userWallets(ctx, params.id, query.tenantId), {
      auth: 'any',
      params: t.Object({ id: t.String({ maxLength: 64 }) }),
      query: t.Object({ tenantId: t.Optional(t.String({ maxLength: 64, description: 'platform admins: the tenant to act in' })) }),
      response: { 200: t.Object({ data: t.Array(Wallet) }), ...errorResponses('standard', 400, 401, 404) },
      detail: { operationId: 'getUserWallets', summary: 'A user\'s wallets', description: 'A user reads its own; an operator reads its tenant\'s users\' (a platform admin names `tenantId`). Anyone else\'s id answers 404.' },
    })
}
