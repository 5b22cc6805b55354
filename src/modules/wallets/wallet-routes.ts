/** Custodial wallets: create, import, list, read, delete and the primary flag. */
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { errorResponses, OffsetPagination, page } from '../../http/schemas'
import { security } from '../../http/security'
import { wallets } from './handle'
import { CreateWallet, ImportWallet, ListWalletsQuery, SetPrimary, Wallet, WalletId } from './model'

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  createWallet: prose`
    The service generates and keeps the key (\`keyManagementScheme: aes_single\`). A testnet
    registry id stores the wallet under its family chain with \`isTestnet: true\`. Errors are
    the envelope with \`detail\`: 400 for an unsupported chain or a tenant in \`mpc\` / \`non_custodial\` mode;
    409 with \`code: PRIMARY_WALLET_EXISTS\` when \`isPrimary\` is asked and a primary wallet exists
    for that chain and network type (switch with \`PATCH /v1/wallets/{id}/set-primary\`); 409 if the
    address is already registered.`,
  importWallet: prose`
    Exactly one of \`privateKey\` or \`mnemonic\`. The key is kept like a created wallet's
    (\`walletType: imported\`, \`aes_single\`). Errors as for create; a key or mnemonic is never
    echoed in an error.`,
  deleteWallet: prose`
    The primary wallet cannot be deleted (400). The service's copy of the key is erased at once;
    export it first if it holds funds.`,
  setWalletPrimaryFlag: prose`
    \`isPrimary: true\` (the default) demotes the current primary of the same chain and network type
    atomically; \`false\` leaves none.`,
  setPrimaryWallet: prose`
    Demotes the previous primary of the same chain and network type in the same transaction; under
    concurrent calls exactly one ends primary.`,
}

export function walletCrudRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/wallets', detail: { tags: ['Wallets'] } })
    .use(security(deps))
    .post('/', async ({ body, ctx, set }) => {
      const wallet = await wallets.createWallet(ctx, body)
      set.status = 201
      return wallet
    }, {
      auth: 'any',
      errorStyle: 'detail',
      body: CreateWallet,
      response: { 201: Wallet, ...errorResponses('detail', 400, 401, 403, 409) },
      detail: {
        operationId: 'createWallet',
        summary: 'Create a custodial wallet',
        description: descriptions.createWallet,
      },
    })
    .post('/import', async ({ body, ctx, set }) => {
      const wallet = await wallets.importWallet(ctx, body)
      set.status = 201
      return wallet
    }, {
      auth: 'any',
      errorStyle: 'detail',
      body: ImportWallet,
      response: { 201: Wallet, ...errorResponses('detail', 400, 401, 403, 409) },
      detail: {
        operationId: 'importWallet',
        summary: 'Import a wallet from a private key or a BIP-39 mnemonic',
        description: descriptions.importWallet,
      },
    })
    .get('/', async ({ query, ctx }) => {
      const { rows, total, limit, offset } = await wallets.listWallets(ctx, query)
      return page(rows, total, limit, offset)
    }, {
      auth: 'any',
      query: ListWalletsQuery,
      response: { 200: t.Object({ data: t.Array(Wallet), pagination: OffsetPagination }), ...errorResponses('standard', 400, 401) },
      detail: { operationId: 'listWallets', summary: 'List one\'s wallets', description: 'Oldest first.' },
    })
    .get('/:id', async ({ params, ctx }) => wallets.getWallet(ctx, params.id), {
      auth: 'any',
      params: WalletId,
      response: { 200: Wallet, ...errorResponses('standard', 401, 404) },
      detail: { operationId: 'getWallet', summary: 'Read one of one\'s wallets' },
    })
    .delete('/:id', async ({ params, ctx, set }) => {
      await wallets.deleteWallet(ctx, params.id)
      set.status = 204
    }, {
      auth: 'any',
      params: WalletId,
      response: { 204: t.Void({ description: 'Deleted' }), ...errorResponses('standard', 400, 401, 404) },
      detail: { operationId: 'deleteWallet', summary: 'Delete a wallet', description: descriptions.deleteWallet },
    })
    .patch('/:id/primary', async ({ params, body, ctx }) => wallets.setPrimary(ctx, params.id, body?.isPrimary ?? true), {
      auth: 'any',
      params: WalletId,
      body: SetPrimary,
      response: { 200: Wallet, ...errorResponses('standard', 400, 401, 404) },
      detail: { operationId: 'setWalletPrimaryFlag', summary: 'Set or unset a wallet as primary', description: descriptions.setWalletPrimaryFlag },
    })
    .patch('/:id/set-primary', async ({ params, ctx }) => wallets.setPrimary(ctx, params.id, true), {
      auth: 'any',
      params: WalletId,
      response: { 200: Wallet, ...errorResponses('standard', 401, 404) },
      detail: { operationId: 'setPrimaryWallet', summary: 'Make a wallet primary (atomic, no body)', description: descriptions.setPrimaryWallet },
    })
}
