/**
 * The owner's signatures in a user operation's JSON (the bundler's format), with viem's core only:
 * the transactions module fills in an MPC wallet's signatures as its parties report them.
 */
import { numberToHex, serializeSignature } from 'viem'
import type { Hex, UserOpJson } from './port'

export type RawSignature = { r: Hex; s: Hex; yParity: number }

/**
 * An unsigned operation's JSON with the owner's signatures in place: the user operation's
 * (`r ‖ s ‖ v`, what Simple7702Account recovers) and the EIP-7702 authorization's, when it has one.
 * Either may be left out (null) to fill in later.
 */
export function withSignatures(json: UserOpJson, sigs: { userOp?: Hex | RawSignature | null; authorization?: RawSignature | null }): UserOpJson {
  const out: UserOpJson = { ...json }
  if (sigs.userOp) out.signature = typeof sigs.userOp === 'string' ? sigs.userOp : serializeSignature(sigs.userOp)
  if (sigs.authorization && json.eip7702Auth) {
    const a = sigs.authorization
    out.eip7702Auth = {
      ...(json.eip7702Auth as Record<string, unknown>), r: numberToHex(BigInt(a.r), { size: 32 }), s: numberToHex(BigInt(a.s), { size: 32 }), yParity: numberToHex(a.yParity, { size: 1 }),
    }
  }
  return out
}

/** Which of the owner's signatures an operation's JSON still lacks. */
export function missingSignatures(json: UserOpJson): { userOp: boolean; authorization: boolean } {
  const auth = json.eip7702Auth as { r?: string } | undefined
  return { userOp: !json.signature || json.signature === '0x', authorization: !!auth && BigInt(auth.r ?? '0x0') === 0n }
}

