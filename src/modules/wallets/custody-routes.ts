/**
 * Non-custodial wallets (a signed challenge registers an address whose key stays on the
 * device) and the migration of a custodial wallet's key to a registered device.
 */
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { wallets } from './handle'
import {
  CancelMigration, ClientChallenge, ClientChallengeQuery, ConfirmClientCustody, Device, MigrationChallenge, MigrationChallengeQuery,
  RegisterClientWallet, RegisterDevice, Wallet,
} from './model'

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  clientWalletChallenge: prose`
    Single use, valid 5 minutes; 30 per minute per IP. Sign \`message\` with the wallet's key:
    EIP-191 \`personal_sign\` on EVM chains; ed25519 over the UTF-8 bytes on Solana (signature
    base58 or base64).`,
  registerClientWallet: prose`
    The key stays on the device (\`keyManagementScheme: client_side\`, \`walletType: client\`). 400
    for an unknown, used or expired challenge or a wrong signature; 409 \`PRIMARY_WALLET_EXISTS\` or
    an address already registered.`,
  registerDevice: prose`
    Re-checks the password (422 when wrong), because a registered device is what a migration hands a
    key to. 10 per minute per IP.`,
  migrationChallenge: prose`
    Hands the key over once, encrypted to the registered device's X25519 key (same envelope as
    export), and marks the wallet \`client_side_pending\`. The device then signs \`message\` with
    the wallet key and posts it to confirm-client-custody, which erases the service's copy. 409
    while a migration is already pending (cancel it to start again).`,
  confirmClientCustody: prose`
    The signature over the migration challenge, made with the wallet's key, proves the device holds
    it; the service then erases its copy (\`client_side\`).`,
}

export function custodyRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/wallets', detail: { tags: ['Wallets'] } })
    .use(security(deps))
    .get('/client/challenge', async ({ query, ctx }) => wallets.clientChallenge(ctx, query), {
      auth: 'any',
      rateLimit: { max: 30, windowSeconds: 60 },
      query: ClientChallengeQuery,
      response: { 200: ClientChallenge, ...errorResponses('standard', 400, 401, 403) },
      detail: {
        operationId: 'clientWalletChallenge',
        summary: 'Challenge for registering a non-custodial wallet',
        description: descriptions.clientWalletChallenge,
      },
    })
    .post('/client', async ({ body, ctx, set }) => {
      const wallet = await wallets.registerClientWallet(ctx, body)
      set.status = 201
      return wallet
    }, {
      auth: 'any',
      body: RegisterClientWallet,
      response: { 201: Wallet, ...errorResponses('standard', 400, 401, 403, 409) },
      detail: {
        operationId: 'registerClientWallet',
        summary: 'Register a non-custodial wallet with a signed challenge',
        description: descriptions.registerClientWallet,
      },
    })
    .post('/register-device', async ({ body, ctx, set }) => {
      const device = await wallets.registerDevice(ctx, body)
      set.status = 201
      return device
    }, {
      auth: 'any',
      rateLimit: { max: 10, windowSeconds: 60 },
      body: RegisterDevice,
      response: { 201: Device, ...errorResponses('standard', 400, 401, 403, 422, 429) },
      detail: { operationId: 'registerDevice', summary: 'Register a device to receive a wallet key in a custody migration', description: descriptions.registerDevice },
    })
    .get('/migration-challenge', async ({ query, ctx }) => wallets.migrationChallenge(ctx, query), {
      auth: 'any',
      query: MigrationChallengeQuery,
      response: { 200: MigrationChallenge, ...errorResponses('standard', 400, 401, 404, 409) },
      detail: {
        operationId: 'migrationChallenge',
        summary: 'Start moving a custodial wallet to client custody',
        description: descriptions.migrationChallenge,
      },
    })
    .post('/confirm-client-custody', async ({ body, ctx }) => wallets.confirmClientCustody(ctx, body), {
      auth: 'any',
      body: ConfirmClientCustody,
      response: { 200: Wallet, ...errorResponses('standard', 400, 401, 404) },
      detail: { operationId: 'confirmClientCustody', summary: 'Confirm a custody migration', description: descriptions.confirmClientCustody },
    })
    .post('/cancel-migration', async ({ body, ctx }) => wallets.cancelMigration(ctx, body), {
      auth: 'any',
      body: CancelMigration,
      response: { 200: Wallet, ...errorResponses('standard', 400, 401, 404) },
      detail: { operationId: 'cancelMigration', summary: 'Cancel a pending custody migration', description: 'The wallet returns to `aes_single`; the challenge stops working.' },
    })
}
