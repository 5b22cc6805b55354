/** Request and response shapes of the MPC group (`/v1/mpc`), with examples for the OpenAPI document. */
import { t, type Static } from 'elysia'
import { integer } from '../../http/integer'
import { prose } from '../../http/prose'
import { OffsetPagination } from '../../http/schemas'
import { Wallet } from '../wallets'

/** Party ids: 0 the user's device, 1 the service party, 2 the backup (held encrypted by the user). */
export const PARTY_ROLES = ['device', 'service', 'backup'] as const
export const DEVICE = 0
export const SERVICE = 1
export const BACKUP = 2
/** The relay's bound on an engine's rounds (src/adapters/mpc/port.ts): key generation and one signature. */
export { MAX_ROUNDS as ROUNDS } from '../../adapters/mpc/port'
/** The largest message payload the relay keeps (decoded bytes; DKG's largest, round 4, is about 71 KB). */
export const MAX_MESSAGE_BYTES = 128 * 1024
/** Messages a session may hold in all (a 3-party DKG sends 21, a signature 8; rounds × senders × receivers would allow 45). */
export const MAX_SESSION_MESSAGES = 32

const Hex = (bytes: number, description: string) => t.String({ pattern: `^0x[0-9a-fA-F]{${bytes * 2}}$`, description, examples: [`0x${'ab'.repeat(bytes)}`] })
const Uuid = t.String({ format: 'uuid', examples: ['3f1c2a9e-7b41-4c1e-9a57-0d2b8c6e5f10'] })
const Role = t.Union([t.Literal('device'), t.Literal('service'), t.Literal('backup')])
export const PartyId = integer({ minimum: 0, maximum: 2, description: '0 device, 1 service, 2 backup' })

export const SessionParams = t.Object({ id: Uuid })
export const WalletParams = t.Object({ walletId: Uuid })
export const TenantParams = t.Object({ tenantId: Uuid })

export const Config = t.Object({
  enabled: t.Boolean({ description: 'true when the caller\'s tenant uses MPC wallets (`walletMode: mpc`) and the deployment has an MPC engine (`MPC_ENGINE`)' }),
  protocol: t.Literal('DKLs23'),
  library: t.Union([t.String(), t.Null()], {
    description: prose`
      the threshold ECDSA engine (library and version) every party must run: the deployment's
      \`MPC_ENGINE\`; null when the deployment has none (then MPC routes answer 503
      \`MPC_ENGINE_NOT_CONFIGURED\`; docs/mpc.md, "The engine")`,
    examples: ['@silencelaboratories/dkls-wasm-ll-node@1.1.2'],
  }),
  threshold: integer({ examples: [2] }),
  participants: integer({ examples: [3] }),
  parties: t.Array(t.Object({ partyId: PartyId, role: Role, heldBy: t.String() })),
  chainPath: t.String({ description: 'the derivation path every SignSession uses', examples: ['m'] }),
  chains: t.Array(t.String(), { description: 'family chain ids MPC wallets can be made on (EVM)', examples: [['ethereum', 'polygon']] }),
  rounds: t.Union([t.Object({ dkg: integer(), sign: integer() }), t.Null()], { description: 'relay rounds one DKG and one signature take with this engine; null without one' }),
  sessionTtlSeconds: integer(),
  messageLimitBytes: integer({ description: 'the largest message payload the relay keeps (decoded bytes)' }),
  messagesPerSession: integer({ description: 'messages one session may hold in all' }),
}, { title: 'MpcConfig' })

export const DkgStartBody = t.Object({
  chain: t.String({ minLength: 1, maxLength: 64, description: 'an EVM chain (family or registry id, e.g. `ethereum`, `sepolia`)', examples: ['ethereum'] }),
  isTestnet: t.Optional(t.Boolean({ default: false })),
}, { title: 'MpcDkgStartBody', examples: [{ chain: 'ethereum', isTestnet: true }] })

const SessionParty = t.Object({ partyId: PartyId, role: Role, joined: t.Boolean(), joinedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]) })

export const Session = t.Object({
  sessionId: Uuid,
  kind: t.Union([t.Literal('dkg'), t.Literal('sign')]),
  status: t.Union([t.Literal('open'), t.Literal('completed'), t.Literal('failed')]),
  chain: t.String(),
  isTestnet: t.Boolean(),
  threshold: integer(),
  participants: integer(),
  parties: t.Array(SessionParty),
  rounds: integer({ description: 'protocol rounds of this session' }),
  walletId: t.Union([Uuid, t.Null()]),
  preparedTransactionId: t.Union([Uuid, t.Null()]),
  messageHash: t.Union([Hex(32, 'signing: the hash signed (keccak256 of the unsigned transaction)'), t.Null()]),
  expiresAt: t.String({ format: 'date-time' }),
}, { title: 'MpcSession' })

export const RegisterWalletBody = t.Object({
  sessionId: Uuid,
  label: t.Optional(t.String({ maxLength: 100 })),
  isPrimary: t.Optional(t.Boolean({ default: false })),
}, { title: 'MpcRegisterWalletBody', examples: [{ sessionId: '3f1c2a9e-7b41-4c1e-9a57-0d2b8c6e5f10', isPrimary: true }] })

export const RegisteredWallet = t.Object({
  ...Wallet.properties,
  publicKey: t.String({ description: 'the joint public key (compressed secp256k1, 0x hex)' }),
  dkgSessionId: Uuid,
}, { title: 'MpcWallet' })

export const SignStartBody = t.Object({
  preparedTransactionId: t.String({ minLength: 1, maxLength: 64, description: 'from `POST /v1/transactions/` on this wallet (the transaction id is accepted too)' }),
  parties: t.Optional(t.Array(PartyId, {
    minItems: 2,
    maxItems: 2,
    uniqueItems: true,
    description: prose`
      which two shares sign: [0, 1] device and service (default), [0, 2] device and backup, [1, 2]
      service and backup`,
  })),
}, { title: 'MpcSignStartBody', examples: [{ preparedTransactionId: '9b0e6a34-1f7c-4d52-8e61-2c3d4b5a6f70', parties: [0, 1] }] })

export const ServiceToken = t.Object({
  token: t.String({ description: 'send as `Authorization: Bearer <token>` on the relay routes, as party 1' }),
  tokenType: t.Literal('Bearer'),
  expiresIn: integer(),
  expiresAt: t.String({ format: 'date-time' }),
}, { title: 'MpcServiceToken' })

export const JoinBody = t.Object({ partyId: PartyId }, { title: 'MpcJoinBody', examples: [{ partyId: 0 }] })

export const Parties = t.Object({ sessionId: Uuid, parties: t.Array(SessionParty) }, { title: 'MpcParties' })

export const MessageBody = t.Object({
  from: PartyId,
  to: t.Optional(t.Union([PartyId, t.Null()], { description: 'the receiving party; omitted or null: broadcast to every other party' })),
  round: integer({ minimum: 1, maximum: 5, description: 'DKG 1 to 5, signing 1 to 4; a party sends its rounds in order' }),
  payload: t.String({
    minLength: 1,
    maxLength: Math.ceil(MAX_MESSAGE_BYTES / 3) * 4,
    pattern: '^[A-Za-z0-9+/]+={0,2}$',
    description: `the library's message bytes, base64 (at most ${MAX_MESSAGE_BYTES} bytes decoded)`,
  }),
}, { title: 'MpcMessageBody', examples: [{ from: 0, to: 1, round: 2, payload: 'BQYHCAk=' }] })

export const MessageAccepted = t.Object({ seq: integer({ description: 'the message\'s place in the session' }) }, { title: 'MpcMessageAccepted' })

export const InboxQuery = t.Object({
  partyId: integer({ minimum: 0, maximum: 2 }),
  after: t.Optional(integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'only messages with a greater `seq` (the last one read)' })),
  round: t.Optional(integer({ minimum: 1, maximum: 5 })),
})

const InboxMessage = t.Object({ seq: integer(), from: PartyId, to: t.Union([PartyId, t.Null()]), round: integer(), payload: t.String() })
export const Inbox = t.Object({ sessionId: Uuid, messages: t.Array(InboxMessage), last: integer({
  description: 'the greatest `seq` answered (or `after`): pass it as `after` next',
}) }, { title: 'MpcInbox' })

export const MessageHash = t.Object({ sessionId: Uuid, messageHash: Hex(32, 'what the parties sign'), chainPath: t.String() }, { title: 'MpcMessageHash' })

export const ResultBody = t.Object({
  partyId: PartyId,
  publicKey: t.Optional(t.String({ pattern: '^0x0[23][0-9a-fA-F]{64}$', description: 'DKG: the joint public key, compressed (33 bytes)' })),
  signature: t.Optional(t.Object(
    { r: t.String({ pattern: '^0x[0-9a-fA-F]{64}$' }), s: t.String({ pattern: '^0x[0-9a-fA-F]{64}$' }) },
    { description: 'signing: R and S as the library combines them' },
  )),
}, { title: 'MpcResultBody', examples: [{ partyId: 0, publicKey: `0x02${'ab'.repeat(32)}` }] })

const ResultItem = t.Object({
  partyId: PartyId,
  publicKey: t.Union([t.String(), t.Null()]),
  signature: t.Union([t.Object({ r: t.String(), s: t.String() }), t.Null()]),
  at: t.String({ format: 'date-time' }),
})

export const Results = t.Object({
  sessionId: Uuid,
  kind: t.Union([t.Literal('dkg'), t.Literal('sign')]),
  status: t.Union([t.Literal('open'), t.Literal('completed'), t.Literal('failed')]),
  results: t.Array(ResultItem),
  publicKey: t.Union([t.String(), t.Null()], { description: 'DKG: the key every party reported, once all agree' }),
  address: t.Union([t.String(), t.Null()], { description: 'DKG: the wallet address of that key' }),
  walletId: t.Union([Uuid, t.Null()], { description: 'DKG: the wallet registered from it; signing: the wallet signed for' }),
  transactionId: t.Union([Uuid, t.Null()]),
  txHash: t.Union([t.String(), t.Null()], { description: 'signing: the broadcast transaction, once a signature verified' }),
  failureReason: t.Union([t.String(), t.Null()]),
}, { title: 'MpcResults' })

export const AdminQuery = t.Object({
  limit: t.Optional(integer({ minimum: 1, maximum: 100, default: 50 })),
  offset: t.Optional(integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
})

export const AdminWallets = t.Object({
  data: t.Array(t.Object({
    walletId: Uuid, userId: Uuid, address: t.String(), chain: t.String(), isTestnet: t.Boolean(),
    publicKey: t.String(), dkgSessionId: Uuid, createdAt: t.String({ format: 'date-time' }),
  })),
  ...OffsetPagination.properties,
}, { title: 'MpcAdminWallets' })

export type DkgStartBody = Static<typeof DkgStartBody>
export type RegisterWalletBody = Static<typeof RegisterWalletBody>
export type SignStartBody = Static<typeof SignStartBody>
export type MessageBody = Static<typeof MessageBody>
export type InboxQuery = Static<typeof InboxQuery>
export type ResultBody = Static<typeof ResultBody>
