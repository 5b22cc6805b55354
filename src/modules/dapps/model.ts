/** Request and response shapes of the dApp helpers (`/v1/dapps`); the services take `typeof X.static`. */
import { t } from 'elysia'
import { prose } from '../../http/prose'

/** How long a nonce of `GET /v1/dapps/nonce` can be spent. */
export const NONCE_TTL_MINUTES = 10
/** Longest message, in characters of `message` as sent. */
export const MESSAGE_MAX_CHARS = 16_384

export const DappNonce = t.Object({
  nonce: t.String({ pattern: '^[0-9a-f]{32}$', description: '128 random bits as 32 lower-case hex characters (alphanumeric, so a SIWE (EIP-4361) `Nonce:` line takes it as it is)' }),
  issuedAt: t.String({ format: 'date-time' }),
  expiresAt: t.String({ format: 'date-time', description: `${NONCE_TTL_MINUTES} minutes after \`issuedAt\`` }),
}, { title: 'DappNonce' })

export const SignMessageBody = t.Object({
  walletId: t.String({ format: 'uuid', description: 'one of the caller\'s custodial wallets (another user\'s or tenant\'s answers 404)' }),
  message: t.String({ minLength: 1, maxLength: MESSAGE_MAX_CHARS, description: 'the message: UTF-8 text, or with `encoding: hex` its bytes as `0x`-prefixed hex' }),
  encoding: t.Optional(t.Union([t.Literal('utf8'), t.Literal('hex')], {
    default: 'utf8',
    description: prose`
      \`utf8\` (default): the text's UTF-8 bytes are signed, even when the text looks like hex;
      \`hex\`: the bytes \`message\` spells`,
  })),
  nonce: t.Optional(t.String({ minLength: 1, maxLength: 128, description: 'a nonce of `GET /v1/dapps/nonce` issued to the caller: spent by this signature (once), and the message must contain it' })),
}, {
  additionalProperties: false,
  examples: [{
    walletId: '0b6f4c1e-8a52-4d7e-9b3a-2f1c5d6e7a80',
    message: [
      'app.example.com wants you to sign in with your Ethereum account:', '0x5a1E5A1e5a1E5a1e5A1E5a1e5A1e5a1E5A1E0001', '',
      'Sign in to Example.', '', 'URI: https://app.example.com', 'Version: 1', 'Chain ID: 1',
      'Nonce: 3f1c5d6e7a800b6f4c1e8a524d7e9b3a', 'Issued At: 2026-11-26T10:00:00.000Z',
    ].join('\n'),
    nonce: '3f1c5d6e7a800b6f4c1e8a524d7e9b3a',
  }],
})
export type SignMessageBody = typeof SignMessageBody.static

export const SignedMessage = t.Object({
  walletId: t.String({ format: 'uuid' }),
  chain: t.String({ description: 'family chain id of the wallet' }),
  isTestnet: t.Boolean(),
  address: t.String({ description: 'the wallet\'s address: what the signature recovers to (EVM) or verifies against (Solana)' }),
  signingScheme: t.Union([t.Literal('eip191-personal-sign'), t.Literal('solana-ed25519')], {
    description: prose`
      \`eip191-personal-sign\`: secp256k1 over keccak256("\\x19Ethereum Signed Message:\\n" + byte
      length + bytes), as \`personal_sign\` and viem's \`verifyMessage\`; \`solana-ed25519\`:
      ed25519 over the bytes themselves, as wallet adapters' \`signMessage\``,
  }),
  message: t.Union([t.String(), t.Null()], { description: 'the signed bytes as UTF-8 text; null when they are not UTF-8 (read `messageHex`)' }),
  messageHex: t.String({ pattern: '^0x([0-9a-f]{2})+$', description: 'the signed bytes, `0x` hex' }),
  signature: t.String({ description: 'EVM: 65 bytes `r ‖ s ‖ v` as `0x` hex (v 27 or 28); Solana: 64 bytes, base58' }),
  nonce: t.Union([t.String(), t.Null()], { description: 'the nonce this signature spent, or null' }),
}, { title: 'SignedPersonalMessage' })

export const DappBroadcastBody = t.Object({
  chain: t.String({
    minLength: 1,
    maxLength: 64,
    description: prose`
      the network: a family id (\`ethereum\`, \`solana\`: mainnet or testnet, see below) or a
      testnet's registry id (\`sepolia\`, \`solana-devnet\`)`,
  }),
  signedTransaction: t.String({
    minLength: 1,
    maxLength: 262_144,
    description: prose`
      EVM: the signed raw transaction, \`0x\` hex (legacy with an EIP-155 chain id, EIP-2930,
      EIP-1559 or EIP-7702); Solana: the signed transaction (legacy or v0), base64`,
  }),
}, {
  additionalProperties: false,
  examples: [{
    chain: 'sepolia',
    signedTransaction: '0x02f87483aa36a780843b9aca0084773594008252089470997970c51812dc3a010c7d01b50e0d17dc79c887038d7ea4c68000'
      + '80c001a095ea51db7476b9d3b71f3fcb9eb1b3f445205425fa315abc9b5751fd80b54a9ca072d6e0ccc4ea98a6371fd54f623d76afed4cfc6236c860348c2fd6be8924314b',
  }],
})
export type DappBroadcastBody = typeof DappBroadcastBody.static

export const DappBroadcast = t.Object({
  id: t.String({ format: 'uuid', description: 'the transaction record: `GET /v1/transactions/{id}` and `/status`' }),
  type: t.Literal('dapp'),
  status: t.Literal('pending'),
  txHash: t.String({ description: 'EVM: keccak256 of the signed bytes; Solana: the first signature, base58' }),
  walletId: t.String({ format: 'uuid', description: 'the caller\'s wallet that signed it' }),
  fromAddress: t.String(),
  chain: t.String({ description: 'family chain id' }),
  isTestnet: t.Boolean(),
  network: t.String({ description: 'registry id of the network it was sent to (`sepolia`)' }),
}, { title: 'DappBroadcast' })
