/**
 * A Solana send signed by the client (solana.ts prepares it): the signed transaction rebuilt
 * from the 64-byte ed25519 signature (base58 or base64) or from the signed transaction
 * (base64), checked against the prepared message, and its signer.
 */
import { ed25519 } from '@noble/curves/ed25519'
import { base58, base64 } from '@scure/base'
import { Message, Transaction, VersionedMessage, VersionedTransaction } from '@solana/web3.js'
import { signatureDecodeFailed } from '../errors'
import type { PreparedRow } from '../repo'
import type { SignedTransaction } from './port'

/**
 * The signed transaction from a client's signature or signed transaction, and its signer.
 * The prepared message is a legacy message (a send) or a versioned one (another module's
 * transaction, such as a swap): the first byte's high bit tells them apart.
 */
export function signedSolana(p: PreparedRow, input: { signature?: unknown; signedTransaction?: string }): SignedTransaction {
  const messageBytes = Buffer.from(p.unsigned, 'base64')
  const versioned = (messageBytes[0]! & 0x80) !== 0
  const message = versioned ? VersionedMessage.deserialize(messageBytes) : Message.from(messageBytes)
  const feePayer = message.staticAccountKeys[0]!
  let sig: Uint8Array
  if (input.signedTransaction !== undefined) {
    let signedMessage: Buffer
    let first: Uint8Array | null | undefined
    try {
      const raw = Buffer.from(input.signedTransaction, 'base64')
      if (versioned) {
        const vt = VersionedTransaction.deserialize(raw)
        signedMessage = Buffer.from(vt.message.serialize())
        first = vt.signatures[0]
      } else {
        const lt = Transaction.from(raw)
        signedMessage = lt.serializeMessage()
        first = lt.signatures[0]?.signature
      }
    } catch {
      throw signatureDecodeFailed('signedTransaction is not a base64 Solana transaction')
    }
    if (!signedMessage.equals(messageBytes)) throw signatureDecodeFailed('the signed transaction differs from the prepared one')
    if (!first || first.every((b) => b === 0)) throw signatureDecodeFailed('the transaction is not signed')
    sig = first
  } else {
    const text = input.signature
    if (typeof text !== 'string') throw signatureDecodeFailed('a Solana signature is 64 bytes in base58 or base64')
    try {
      sig = /^[A-Za-z0-9+/]{86}==$/.test(text) ? base64.decode(text) : base58.decode(text)
    } catch {
      throw signatureDecodeFailed('a Solana signature is 64 bytes in base58 or base64')
    }
    if (sig.length !== 64) throw signatureDecodeFailed('a Solana signature is 64 bytes')
  }
  let valid = false
  try {
    valid = ed25519.verify(sig, messageBytes, feePayer.toBytes())
  } catch { /* malformed point: not the wallet's signature */ }
  // A signature that does not verify against the fee payer (the wallet) was made by another key.
  const signer = valid ? feePayer.toBase58() : 'unknown'
  const raw = versioned
    ? Buffer.from(new VersionedTransaction(message as VersionedMessage, [sig]).serialize())
    : Transaction.populate(message as Message, [base58.encode(sig)]).serialize({ verifySignatures: false })
  return { raw: raw.toString('base64'), signer, hash: base58.encode(sig) }
}
