/**
 * dApp helpers (`/v1/dapps`): a single-use nonce for sign-in messages, a personal message
 * signed by the caller's custodial wallet, and the broadcast of a transaction the caller's
 * own wallet signed. Every route acts on the caller's own wallets and nonces. Decisions: docs/dapps.md.
 */
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { prose } from '../../http/prose'
import { errorResponses } from '../../http/schemas'
import { security } from '../../http/security'
import { lazyService } from '../../lib/lazy'
import { chainErrors } from '../transactions'
import { DappBroadcast, DappBroadcastBody, DappNonce, MESSAGE_MAX_CHARS, NONCE_TTL_MINUTES, SignedMessage, SignMessageBody } from './model'

/** The dApp verbs (they sign and decode, and so load the chain libraries) load with the first dApp request. */
const service = lazyService(() => import('./impl'))

const WHO = 'Bearer; a user of a tenant (a platform admin has no wallets: 403).'

/** What the OpenAPI document says of each operation, kept off the route lines. */
const descriptions = {
  dappNonce: [
    prose`
      ${WHO} 32 lower-case hex characters (128 random bits), bound to the caller, valid
      ${NONCE_TTL_MINUTES} minutes, for one use. Only its SHA-256 is stored. Put it in the message
      to sign (a SIWE (EIP-4361) message's \`Nonce:\` line) and send it as \`nonce\` to
      \`POST /v1/dapps/sign-personal-message\`: that signature spends it. A spent nonce answers 409
      \`DAPP_NONCE_USED\`, an expired one 400 \`DAPP_NONCE_EXPIRED\`, another user's or an unknown
      one 400 \`DAPP_NONCE_INVALID\`. So Slipway signs at most one message per nonce, and a dApp
      that checks the nonce it handed out knows the signature is fresh.`,
    'Answered with `cache-control: no-store`. 30 per minute per IP.',
  ].join('\n\n'),
  dappSignPersonalMessage: [
    prose`
      ${WHO} The caller's custodial wallet (\`walletId\`) signs \`message\` (at most
      ${MESSAGE_MAX_CHARS} characters; UTF-8 text, or \`0x\` hex with \`encoding: hex\`). EVM:
      EIP-191 \`personal_sign\` (viem's \`verifyMessage\` verifies it), signature 65-byte hex.
      Solana: ed25519 over the bytes themselves, as wallet adapters' \`signMessage\`, signature
      base58. The answer shows what was signed: \`message\` (the text; null when the bytes are not
      UTF-8) and \`messageHex\`.`,
    prose`
      Refused, 400 with \`code\`, before any key is opened: \`DAPP_MESSAGE_IS_TRANSACTION\` when the
      bytes, or the text read as hex, base64 or base58, are a serialized transaction: a Solana
      transaction or message (its signature is ed25519 over exactly those bytes: signing it would
      sign the transaction) or an EVM transaction (RLP legacy or an EIP-2718 typed envelope, signed
      or not); \`DAPP_MESSAGE_IS_TYPED_DATA\` for EIP-712 typed data (JSON with \`types\`,
      \`primaryType\`, \`domain\`, \`message\`, or a permit's fields such as \`spender\` with
      \`deadline\`, and the \`0x1901\` signing pre-image): permits authorise spending, and no typed
      data is signed here; \`DAPP_MESSAGE_IS_HASH\` for a bare 32-byte value that is not readable
      text (or 64 hex digits); \`DAPP_MESSAGE_INVALID\` for \`encoding: hex\` with a message that is
      not hex.`,
    prose`
      Wallets: another user's or tenant's answers 404 \`Wallet not found\`; a non-custodial
      (\`client_side\`) or MPC (\`mpc_tss\`) wallet answers 400 \`DAPP_WALLET_NOT_CUSTODIAL\` (they
      sign on their side).`,
    prose`
      \`nonce\` (optional): one of \`GET /v1/dapps/nonce\`, which the message must contain (400
      \`DAPP_NONCE_NOT_IN_MESSAGE\`); it is spent by this call, before the signature, once: 409
      \`DAPP_NONCE_USED\` the second time, 400 \`DAPP_NONCE_EXPIRED\`, 400 \`DAPP_NONCE_INVALID\`
      (unknown or another user's). A refused message or wallet does not spend it. Nothing is stored
      about the signature. 20 per minute per IP.`,
  ].join('\n\n'),
  dappBroadcast: [
    prose`
      ${WHO} A transaction a dApp had one of the caller's wallets sign (typically a non-custodial
      one), submitted as it is: EVM \`0x\` hex of a signed legacy (with an EIP-155 chain id),
      EIP-2930, EIP-1559 or EIP-7702 transaction; Solana base64 of a signed legacy or v0
      transaction. It is recorded in the caller's history as type \`dapp\`
      (\`GET /v1/transactions/{id}\`, the aggregated feed), submitted through the transactions
      module, and followed by the status job (a dropped one is handed to the node again unchanged; a
      Solana one fails once its blockhash expires). \`amount\` of the record is the native coin it
      moves from the wallet (EVM \`value\`; Solana: System program transfers from the fee payer),
      \`toAddress\` its recipient (EVM \`to\`; Solana: the one transfer recipient, else null).`,
    prose`
      \`chain\`: a family id (\`ethereum\`) or a testnet's registry id (\`sepolia\`). The sender
      (EVM: recovered from the signature; Solana: the fee payer) must be one of the caller's wallets
      on that chain, any custody; with a family id and the address on both networks, an EVM
      transaction's chain id picks the network, and a Solana one goes to mainnet (name
      \`solana-devnet\` for devnet).`,
    prose`
      Errors (\`error: BlockchainError\`, \`code\`, \`retryable\`, \`suggestedAction\`): 400
      \`SIGNATURE_DECODE_FAILED\` (not a signed transaction of the chain's family, unsigned, a
      signature missing, no signer recoverable); 400 \`SIGNATURE_INVALID\` (Solana: a signature that
      does not verify); 400 \`WRONG_SIGNER\` (signed by an address that is not one of the caller's
      wallets on that chain); 400 \`CHAIN_ID_MISMATCH\` (EVM: signed for another chain id than the
      network's RPC reports, or for none); 400 \`TRANSACTION_TYPE_UNSUPPORTED\` (EIP-4844); 400
      \`TRANSACTION_REJECTED\` (the node refused it: nonce, fees, balance; recorded \`failed\`); 409
      \`TRANSACTION_ALREADY_BROADCAST\` with \`details.transactionId\` (the same signed transaction
      again); 400 \`Unsupported chain\`. 503 when the network cannot be reached (nothing was
      submitted: broadcast the same bytes again). 10 per 10 seconds per IP.`,
  ].join('\n\n'),
}

export function dappRoutes(deps: Deps) {
  return new Elysia({ prefix: '/v1/dapps', detail: { tags: ['dApps'] } })
    .use(security(deps))
    .get('/nonce', async ({ ctx, set }) => {
      // a nonce is for one use: no cache may answer it twice
      set.headers['cache-control'] = 'no-store'
      return service.issueNonce(ctx)
    }, {
      auth: 'any',
      rateLimit: { max: 30, windowSeconds: 60 },
      response: { 200: DappNonce, ...errorResponses('standard', 401, 403, 429) },
      detail: {
        operationId: 'dappNonce',
        summary: 'A single-use nonce for a dApp sign-in message',
        description: descriptions.dappNonce,
      },
    })
    .post('/sign-personal-message', async ({ body, ctx }) => service.signPersonalMessage(ctx, body), {
      auth: 'any',
      rateLimit: { max: 20, windowSeconds: 60 },
      body: SignMessageBody,
      response: { 200: SignedMessage, ...errorResponses('standard', 400, 401, 403, 404, 409, 429) },
      detail: {
        operationId: 'dappSignPersonalMessage',
        summary: 'Sign a personal message with a custodial wallet',
        description: descriptions.dappSignPersonalMessage,
      },
    })
    .post('/broadcast', async ({ body, ctx, set }) => {
      const out = await service.broadcastSigned(ctx, body)
      set.status = 201
      return out
    }, {
      auth: 'any',
      rateLimit: { max: 10, windowSeconds: 10 },
      body: DappBroadcastBody,
      response: { 201: DappBroadcast, ...errorResponses('standard', 400, 401, 403, 409, 429, 503), ...chainErrors(400, 409) },
      detail: {
        operationId: 'dappBroadcast',
        summary: 'Broadcast a transaction the caller\'s wallet signed',
        description: descriptions.dappBroadcast,
      },
    })
}
