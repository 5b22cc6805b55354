/**
 * MPC group (`/v1/mpc`): 2-of-3 threshold ECDSA wallets (DKLs23) on tenants whose
 * `walletMode` is `mpc`. Flows use the user's bearer token; the relay routes take a user's
 * token (device 0, backup 2) or a service token (service party 1). docs/mpc.md.
 */
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { lazyService } from '../../lib/lazy'
import { relayCaller, type RelayCaller } from './access'
import * as M from './model'

const flows = lazyService(() => import('./service'))
const relay = lazyService(() => import('./relay'))

const RELAY = prose`
  Relay route. Bearer: the session's user (as party 0, device, or 2, backup) or a service token from
  \`POST /v1/mpc/service/token\` (as party 1). Another tenant's or an unknown session answers 404
  \`MPC_SESSION_NOT_FOUND\`; a caller of the tenant who is not a party of the session, or names a
  party id it cannot hold, 403 \`MPC_NOT_A_PARTY\`; an expired session 410 \`MPC_SESSION_EXPIRED\`.`
const MPC_ONLY = 'The caller\'s tenant must use MPC wallets (`walletMode: mpc`): otherwise 403 `MPC_NOT_ENABLED`.'

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  mpcConfig: prose`
    Whether the tenant uses MPC wallets, the protocol and the engine (library and version) every
    party must run: the module the deployment names with MPC_ENGINE (docs/mpc.md, "The engine");
    without one, \`enabled\` is false, \`library\` and \`rounds\` null, and the routes that start a
    DKG or a signature answer 503 \`MPC_ENGINE_NOT_CONFIGURED\`; the parties and who holds each
    share, the rounds, the session lifetime (MPC_SESSION_TTL_SECONDS) and the relay's limits.`,
  mpcDkgStart: prose`
    ${MPC_ONLY} Opens a 3-party DKG session (0 the device, 1 Slipway's service party, which joins on
    its own, 2 the backup) and answers it. The device and the backup run the protocol through the
    relay (src/client/mpc-party.ts \`runDkg\`), each reports the joint public key with
    \`POST .../result\`, and \`POST /v1/mpc/wallets\` registers the wallet. EVM chains only: a
    Solana chain answers 400 \`MPC_CHAIN_UNSUPPORTED\` (it would need threshold EdDSA). Each DKG
    costs the service party about a second of CPU, so a user may start 20 per minute (429 with
    \`retry-after\`). 503 \`MPC_ENGINE_NOT_CONFIGURED\` when the deployment has no MPC engine
    (\`MPC_ENGINE\`; docs/mpc.md, "The engine").`,
  mpcRegisterWallet: prose`
    ${MPC_ONLY} Once every party of the DKG session reported the same public key, makes the wallet
    (\`keyManagementScheme: mpc_tss\`, address from the joint key) and binds the service party's
    share to it. Once per session: 409 \`MPC_WALLET_ALREADY_REGISTERED\`; 409 \`MPC_DKG_INCOMPLETE\`
    while a party has not reported; 409 \`MPC_PUBLIC_KEY_MISMATCH\` when reports differ (start a new
    DKG); 410 \`MPC_SESSION_EXPIRED\` after the session's lifetime; 404 for another user's or
    tenant's session. Balances, history and sends then work as for any wallet: a send answers a
    prepared transaction, signed with \`POST /v1/mpc/wallets/{walletId}/sign/start\`.`,
  mpcSignStart: prose`
    For a transaction prepared with \`POST /v1/transactions/\` on this MPC wallet: opens a 2-party
    signing session over its \`signingHash\` (\`messageHash\`). Parties default to [0, 1] (device
    and service; the service party joins on its own and signs only that hash); [0, 2] signs with
    device and backup, without the service. When a party reports a signature (\`POST .../result\`)
    that verifies against the wallet's key, Slipway broadcasts the transaction (\`txHash\` in the
    results). A sponsored send (docs/gas-sponsorship.md) has one prepared piece per hash: the user
    operation's \`preparedTransactionId\` and, for the wallet's first, its
    \`authorization.preparedTransactionId\`; each is signed in a session of its own, and the
    operation goes to the bundler when the last one is reported (\`txHash\` null, \`transactionId\`
    in the results). 404 for an unknown wallet or prepared transaction (another user's or tenant's too);
    400 \`MPC_NOT_AN_MPC_WALLET\`; 409 \`PREPARED_TX_ALREADY_USED\`; 410 \`PREPARED_TX_EXPIRED\`;
    503 \`MPC_ENGINE_NOT_CONFIGURED\` when the deployment has no MPC engine. 30 per minute per IP.`,
  mpcServiceToken: prose`
    Signed with the tenant's API key and secret (HMAC). The token (as long as a session lives,
    MPC_SESSION_TTL_SECONDS) lets its holder act as party 1 in the relay sessions of this tenant and
    nothing else; it is not an access token. Slipway's own service party (a job of the worker) mints
    the same token for itself. 30 per minute per IP.`,
  mpcAdminWallets: prose`
    Platform admin, or a tenantadmin for its own tenant (another tenant answers 404). Each wallet
    with its joint public key and DKG session; never a share.`,
  mpcRelayMessage: prose`
    ${RELAY} \`from\` is the caller's party (joined); \`to\` another party, or null to broadcast. A
    party sends its rounds in order: a round below its last, or past the next, answers 409
    \`MPC_MESSAGE_OUT_OF_ORDER\`; the same round, sender and receiver again 409
    \`MPC_MESSAGE_REPLAYED\`. Payloads up to ${M.MAX_MESSAGE_BYTES} bytes (413
    \`MPC_MESSAGE_TOO_LARGE\`), ${M.MAX_SESSION_MESSAGES} messages per session (409
    \`MPC_SESSION_FULL\`).`,
  mpcRelayInbox: prose`
    ${RELAY} Messages addressed to \`partyId\` or broadcast by another party, in the order the relay
    took them (\`seq\`), after \`after\`, optionally of one \`round\`; at most 50 per call. Poll
    with \`after\` = the answer's \`last\`.`,
  mpcRelayMessageHash: prose`
    ${RELAY} keccak256 of the prepared transaction's unsigned serialization (its \`signingHash\`).
    400 \`MPC_NOT_A_SIGNING_SESSION\` for a DKG session.`,
  mpcRelayResult: prose`
    ${RELAY} DKG: \`publicKey\` (compressed); when every party reported, the session completes if
    they agree and fails if not. Signing: \`signature\` { r, s }; it must sign the session's hash
    with the wallet's key (400 \`MPC_SIGNATURE_INVALID\`), and the first such report broadcasts the
    prepared transaction (the answer's \`txHash\`; the transactions routes' broadcast errors apply).
    A party reporting a different result again: 409 \`MPC_RESULT_CONFLICT\`. Answers the session's
    results.`,
  mpcRelayResults: prose`
    ${RELAY} Each party's report, the session's status, and for a DKG the agreed key, its address
    and the wallet registered; for a signature the transaction broadcast.`,
}

export function mpcRoutes(deps: Deps) {
  const party = new Elysia({ name: 'slipway-mpc-party' }).macro({
    relayParty: (on: boolean) => ({
      detail: on ? { security: [{ bearerAuth: [] }] } : {},
      async resolve({ request }): Promise<{ caller: RelayCaller }> {
        return { caller: await relayCaller(deps, request.headers.get('authorization')) }
      },
    }),
  })
  return new Elysia({ prefix: '/v1/mpc', detail: { tags: ['MPC'] } })
    .use(security(deps))
    .use(party)
    .get('/config', ({ ctx }) => flows.config(ctx), {
      auth: 'any',
      response: { 200: M.Config, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'mpcConfig', summary: 'How MPC wallets work on this tenant', description: descriptions.mpcConfig },
    })
    .post('/wallets/dkg/start', ({ ctx, body }) => flows.dkgStart(ctx, body), {
      auth: 'any',
      body: M.DkgStartBody,
      response: { 200: M.Session, ...errorResponses('standard', 400, 401, 403, 404, 429, 503) },
      detail: {
        operationId: 'mpcDkgStart',
        summary: 'Start key generation for a new MPC wallet',
        description: descriptions.mpcDkgStart,
      },
    })
    .post('/wallets', ({ ctx, body }) => flows.registerWallet(ctx, body), {
      auth: 'any',
      body: M.RegisterWalletBody,
      response: { 200: M.RegisteredWallet, ...errorResponses('standard', 400, 401, 403, 404, 409, 410) },
      detail: {
        operationId: 'mpcRegisterWallet',
        summary: 'Register the wallet of a finished key generation',
        description: descriptions.mpcRegisterWallet,
      },
    })
    .post('/wallets/:walletId/sign/start', ({ ctx, params, body }) => flows.signStart(ctx, params.walletId, body), {
      auth: 'any',
      rateLimit: { max: 30, windowSeconds: 60 },
      params: M.WalletParams,
      body: M.SignStartBody,
      response: { 200: M.Session, ...errorResponses('standard', 400, 401, 403, 404, 409, 410, 429, 503) },
      detail: {
        operationId: 'mpcSignStart',
        summary: 'Start signing a prepared transaction',
        description: descriptions.mpcSignStart,
      },
    })
    .post('/service/token', ({ tenant }) => flows.serviceToken(deps, tenant), {
      tenantSigned: true,
      rateLimit: { max: 30, windowSeconds: 60 },
      response: { 200: M.ServiceToken, ...errorResponses('standard', 401, 404, 429) },
      detail: {
        operationId: 'mpcServiceToken',
        summary: 'A short-lived token for a service party process (tenant-signed)',
        description: descriptions.mpcServiceToken,
      },
    })
    .get('/admin/wallets/:tenantId', ({ ctx, params, query }) => flows.adminWallets(ctx, params.tenantId, query), {
      auth: 'operator',
      params: M.TenantParams,
      query: M.AdminQuery,
      response: { 200: M.AdminWallets, ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'mpcAdminWallets', summary: 'A tenant\'s MPC wallets (operators)', description: descriptions.mpcAdminWallets },
    })
    .post('/relay/session/:id/join', ({ caller, params, body }) => relay.join(deps, caller, params.id, body.partyId), {
      relayParty: true,
      params: M.SessionParams,
      body: M.JoinBody,
      response: { 200: M.Session, ...errorResponses('standard', 400, 401, 403, 404, 410) },
      detail: { operationId: 'mpcRelayJoin', summary: 'Join a session as a party', description: `${RELAY} Joining again is harmless. A party must join before it sends.` },
    })
    .get('/relay/session/:id/parties', ({ caller, params }) => relay.parties(deps, caller, params.id), {
      relayParty: true,
      params: M.SessionParams,
      response: { 200: M.Parties, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'mpcRelayParties', summary: 'The session\'s parties and who joined', description: RELAY },
    })
    .post('/relay/session/:id/msg', async ({ caller, params, body, set }) => {
      const out = await relay.postMessage(deps, caller, params.id, body)
      set.status = 201
      return out
    }, {
      relayParty: true,
      params: M.SessionParams,
      body: M.MessageBody,
      response: { 201: M.MessageAccepted, ...errorResponses('standard', 400, 401, 403, 404, 409, 410, 413) },
      detail: {
        operationId: 'mpcRelayMessage',
        summary: 'Send a protocol message',
        description: descriptions.mpcRelayMessage,
      },
    })
    .get('/relay/session/:id/inbox', ({ caller, params, query }) => relay.inbox(deps, caller, params.id, query), {
      relayParty: true,
      params: M.SessionParams,
      query: M.InboxQuery,
      response: { 200: M.Inbox, ...errorResponses('standard', 400, 401, 403, 404, 410) },
      detail: { operationId: 'mpcRelayInbox', summary: 'Messages for a party', description: descriptions.mpcRelayInbox },
    })
    .get('/relay/session/:id/msghash', ({ caller, params }) => relay.msghash(deps, caller, params.id), {
      relayParty: true,
      params: M.SessionParams,
      response: { 200: M.MessageHash, ...errorResponses('standard', 400, 401, 403, 404) },
      detail: { operationId: 'mpcRelayMessageHash', summary: 'The hash a signing session signs', description: descriptions.mpcRelayMessageHash },
    })
    .post('/relay/session/:id/result', ({ caller, params, body }) => relay.postResult(deps, caller, params.id, body), {
      relayParty: true,
      params: M.SessionParams,
      body: M.ResultBody,
      response: { 200: M.Results, ...errorResponses('standard', 400, 401, 403, 404, 409, 410, 503) },
      detail: {
        operationId: 'mpcRelayResult',
        summary: 'Report a party\'s result',
        description: descriptions.mpcRelayResult,
      },
    })
    .get('/relay/session/:id/results', ({ caller, params }) => relay.results(deps, caller, params.id), {
      relayParty: true,
      params: M.SessionParams,
      response: { 200: M.Results, ...errorResponses('standard', 401, 403, 404) },
      detail: { operationId: 'mpcRelayResults', summary: 'The session\'s results', description: descriptions.mpcRelayResults },
    })
}

