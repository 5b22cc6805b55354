/**
 * What `POST /v1/dapps/sign-personal-message` refuses to sign: bytes that are, or encode,
 * something other than a message a person reads.
 *
 * Why each refusal:
 * - A serialized Solana transaction or message. A Solana transaction's signature is ed25519
 *   over its message bytes, with no prefix: signing a message that IS those bytes signs the
 *   transaction, and whoever asked can submit it. This is the refusal that protects funds.
 * - A serialized EVM transaction (RLP legacy, or an EIP-2718 typed envelope: 2930, 1559,
 *   4844, 7702; signed or not). EIP-191's prefix means the signature cannot be replayed as
 *   the transaction's, but a request to "sign" a transaction through the message route is a
 *   dApp (or an attacker) working around the broadcast route's checks, or a user misled
 *   about what they approve.
 * - EIP-712 typed data (JSON with `types`/`primaryType`/`domain`/`message`, or a permit's
 *   own fields such as `spender` with `deadline`), and the EIP-712 signing pre-image
 *   (`0x19 0x01 ‖ domainSeparator ‖ structHash`). Typed data is how permits (EIP-2612,
 *   Permit2) authorise spending without a transaction; signed through this route it is
 *   not typed-data signing, so the dApp is confused or is fishing for a signature the user
 *   would not give knowingly. Slipway signs no typed data here.
 * - A bare 32-byte value that is not text (or 64 hex digits): a hash no one can read. Older
 *   exchange protocols (0x v2's `EthSign`, Wyvern) took `personal_sign` over an order hash as
 *   a trade authorisation. 32 characters of readable text are signed.
 *
 * The bytes are checked as given and, when the text is itself an encoding (hex with or
 * without `0x`, base64, base58), as what it decodes to: a dApp that passes a transaction as
 * its hex or base64 text is refused alike. Decoding is exact (the whole input must be one
 * transaction or message, re-serialising to the same bytes), so ordinary text is not caught.
 */
import { base58, base64 } from '@scure/base'
import { VersionedMessage, VersionedTransaction } from '@solana/web3.js'
import { bytesToHex, parseTransaction } from 'viem'

export type RefusalCode = 'DAPP_MESSAGE_IS_TRANSACTION' | 'DAPP_MESSAGE_IS_TYPED_DATA' | 'DAPP_MESSAGE_IS_HASH'

export interface Refusal {
  code: RefusalCode
  reason: string
}

const HEX = /^(0x)?([0-9a-fA-F]{2})+$/
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/
/** the smallest serialized Solana message: header (3), one key (1 + 32), blockhash (32), no instruction (1) */
const MIN_SOLANA_BYTES = 69
/**
 * Base58 text of a Solana transaction (at most 1232 bytes, the network's packet size) is at most
 * about 1,700 characters; base58 decoding is quadratic (16,384 characters take half a second), so
 * longer text is not read as base58: it cannot be a Solana transaction.
 */
const MAX_BASE58_CHARS = 1_700

function isEvmTransaction(bytes: Uint8Array): boolean {
  if (bytes.length < 3) return false
  try {
    parseTransaction(bytesToHex(bytes))
    return true
  } catch {
    return false
  }
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i])

function isSolanaTransactionOrMessage(bytes: Uint8Array): 'transaction' | 'message' | null {
  if (bytes.length < MIN_SOLANA_BYTES) return null
  try {
    const m = VersionedMessage.deserialize(bytes)
    if (sameBytes(m.serialize(), bytes)) return 'message'
  } catch { /* not a message */ }
  try {
    const tx = VersionedTransaction.deserialize(bytes)
    if (sameBytes(tx.serialize(), bytes)) return 'transaction'
  } catch { /* not a transaction */ }
  return null
}

const PERMIT_TYPE = /permit/i

/** EIP-712 typed data, or a permit's message without its types, anywhere in a JSON value (a few levels deep: `eth_signTypedData` params are `[address, typedData]`). */
function isTypedData(v: unknown, depth = 0): boolean {
  if (depth > 4 || v === null || typeof v !== 'object') {
    // typed data passed as a JSON string inside JSON
    if (typeof v === 'string' && depth <= 4 && /^\s*[[{]/.test(v)) return isTypedData(parseJson(v), depth + 1)
    return false
  }
  if (Array.isArray(v)) return v.some((x) => isTypedData(x, depth + 1))
  const o = v as Record<string, unknown>
  const has = (k: string) => Object.prototype.hasOwnProperty.call(o, k)
  if (has('types') && (has('primaryType') || has('domain') || has('message'))) return true
  if (has('domain') && has('message')) return true
  if (typeof o.primaryType === 'string') return true
  if (has('types') && typeof o.types === 'object' && o.types !== null && Object.keys(o.types).some((k) => PERMIT_TYPE.test(k))) return true
  // a permit's message alone: EIP-2612 (spender, value, deadline), Permit2 (spender, sigDeadline / expiration)
  if (has('spender') && (has('deadline') || has('sigDeadline') || has('expiration'))) return true
  return Object.values(o).some((x) => isTypedData(x, depth + 1))
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The byte strings the input stands for: the bytes themselves, and what their text decodes to when it is hex, base64 or base58. */
interface Reading {
  bytes: Uint8Array
  as: string
  /** whether 32 bytes read this way are a hash: the raw bytes when they are not readable text, and hex digits */
  hashLike: boolean
}

/** Text a person reads: no control characters but line breaks and tabs. */
const READABLE = /^[^\p{Cc}]*$/u
const readable = (text: string | null) => text !== null && READABLE.test(text.replace(/[\n\r\t]/g, ''))

function readings(bytes: Uint8Array, text: string | null): Reading[] {
  const out: Reading[] = [{ bytes, as: 'the message', hashLike: !readable(text) }]
  const v = text?.trim()
  if (!v) return out
  if (HEX.test(v)) out.push({ bytes: Uint8Array.from(Buffer.from(v.replace(/^0x/, ''), 'hex')), as: 'the message\'s hex', hashLike: true })
  if (v.length >= 16 && v.length % 4 === 0 && BASE64.test(v)) {
    try {
      out.push({ bytes: base64.decode(v), as: 'the message\'s base64', hashLike: false })
    } catch { /* not base64 */ }
  }
  if (v.length >= 64 && v.length <= MAX_BASE58_CHARS && BASE58.test(v)) {
    try {
      out.push({ bytes: base58.decode(v), as: 'the message\'s base58', hashLike: false })
    } catch { /* not base58 */ }
  }
  return out
}

/** Why the message must not be signed, or null when it may be. `text` is the message as UTF-8 text, or null when its bytes are not UTF-8. */
export function refusalOf(bytes: Uint8Array, text: string | null): Refusal | null {
  if (text !== null && isTypedData(parseJson(text.trim()))) {
    return { code: 'DAPP_MESSAGE_IS_TYPED_DATA', reason: 'The message is EIP-712 typed data (a permit or another typed authorisation): Slipway does not sign typed data through this route' }
  }
  for (const r of readings(bytes, text)) {
    const solana = isSolanaTransactionOrMessage(r.bytes)
    if (solana) return {
      code: 'DAPP_MESSAGE_IS_TRANSACTION',
      reason: `${capital(r.as)} is a serialized Solana ${solana}: signing it would sign the transaction. Use POST /v1/dapps/broadcast for transactions`,
    }
    if (isEvmTransaction(r.bytes)) return { code: 'DAPP_MESSAGE_IS_TRANSACTION', reason: `${capital(r.as)} is a serialized EVM transaction. Use POST /v1/dapps/broadcast for transactions` }
    if (r.bytes.length >= 34 && r.bytes[0] === 0x19 && r.bytes[1] === 0x01) {
      return {
        code: 'DAPP_MESSAGE_IS_TYPED_DATA',
        reason: `${capital(r.as)} is an EIP-712 signing pre-image (0x1901 ‖ domain separator ‖ struct hash): Slipway does not sign typed data through this route`,
      }
    }
    if (r.hashLike && r.bytes.length === 32) return { code: 'DAPP_MESSAGE_IS_HASH', reason: `${capital(r.as)} is a bare 32-byte value (a hash): sign readable text that says what it authorises` }
  }
  return null
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)
