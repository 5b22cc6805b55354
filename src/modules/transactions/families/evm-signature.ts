/**
 * A client's (or an MPC session's) secp256k1 signature as the broadcast route takes it, and
 * the signed EIP-1559 transaction a client-signed send becomes.
 */
import {
  keccak256, parseSignature, parseTransaction, recoverAddress, recoverTransactionAddress, serializeTransaction,
  type Hex, type TransactionSerializableEIP1559,
} from 'viem'
import { signatureDecodeFailed } from '../errors'
import type { BroadcastBody } from '../model'
import type { PreparedRow } from '../repo'
import type { SignedTransaction } from './port'

const HEX_SIG = /^0x[0-9a-fA-F]{130}$/
const HEX32 = /^0x[0-9a-fA-F]{1,64}$/

/** `{ r, s, yParity }` from 65-byte hex `r ‖ s ‖ v` or an object; 400 SIGNATURE_DECODE_FAILED otherwise. */
export function signatureParts(sig: BroadcastBody['signature']): { r: Hex; s: Hex; yParity: number } {
  try {
    if (typeof sig === 'string') {
      if (!HEX_SIG.test(sig)) throw new Error('expected 65 bytes as 0x-prefixed hex')
      const ps = parseSignature(sig as Hex)
      return { r: ps.r, s: ps.s, yParity: ps.yParity ?? Number(ps.v! - 27n) }
    }
    if (sig && typeof sig === 'object') {
      if (!HEX32.test(sig.r) || !HEX32.test(sig.s)) throw new Error('r and s must be 0x-prefixed hex of at most 32 bytes')
      const yParity = sig.yParity ?? (sig.v === 27 || sig.v === 28 ? sig.v - 27 : sig.v)
      if (yParity !== 0 && yParity !== 1) throw new Error('yParity must be 0 or 1 (or v 27/28)')
      return { r: sig.r as Hex, s: sig.s as Hex, yParity }
    }
    throw new Error('send `signature` or `signedTransaction`')
  } catch (err) {
    throw signatureDecodeFailed((err as Error).message.split('\n')[0]!.slice(0, 200))
  }
}

/** secp256k1's order */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/** S in the low half (EIP-2, which EIP-7702 authorizations and OpenZeppelin's ECDSA require), the recovery bit flipped with it */
export function lowS(sig: { r: Hex; s: Hex; yParity: number }): { r: Hex; s: Hex; yParity: number } {
  const s = BigInt(sig.s)
  if (s <= N / 2n) return sig
  return { r: sig.r, s: `0x${(N - s).toString(16).padStart(64, '0')}`, yParity: 1 - sig.yParity }
}

/** The signed EIP-1559 transaction from what the client sent, and who signed it. */
export async function signedEvm(p: PreparedRow, input: BroadcastBody): Promise<SignedTransaction> {
  const prepared = parseTransaction(p.unsigned as Hex) as TransactionSerializableEIP1559
  if (input.signedTransaction !== undefined) {
    let parsed: ReturnType<typeof parseTransaction>
    try {
      if (!/^0x02[0-9a-fA-F]+$/.test(input.signedTransaction)) throw new Error('not an EIP-1559 transaction in hex')
      parsed = parseTransaction(input.signedTransaction as Hex)
    } catch (err) {
      throw signatureDecodeFailed((err as Error).message.split('\n')[0]!.slice(0, 200))
    }
    const { r, s, v, yParity, ...fields } = parsed as TransactionSerializableEIP1559 & { r?: Hex; s?: Hex; v?: bigint; yParity?: number }
    if (!r || !s) throw signatureDecodeFailed('the transaction is not signed')
    if (serializeTransaction(fields as TransactionSerializableEIP1559) !== p.unsigned) {
      throw signatureDecodeFailed('the signed transaction differs from the prepared one (nonce, fees, recipient, value or data)')
    }
    void v
    void yParity
    const signer = await recoverTransactionAddress({ serializedTransaction: input.signedTransaction as `0x02${string}` }).catch(() => { throw signatureDecodeFailed('no signer can be recovered') })
    return { raw: input.signedTransaction, signer, hash: keccak256(input.signedTransaction as Hex) }
  }
  const parts = signatureParts(input.signature)
  const signer = await recoverAddress({ hash: keccak256(p.unsigned as Hex), signature: parts }).catch(() => { throw signatureDecodeFailed('no signer can be recovered from this signature') })
  const raw = serializeTransaction(prepared, parts)
  return { raw, signer, hash: keccak256(raw) }
}
