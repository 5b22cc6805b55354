/** How MPC sessions are answered, and the address of a joint key. */
import { secp256k1 } from '@noble/curves/secp256k1'
import { getAddress, keccak256 } from 'viem'
import { iso } from '../../lib/clock'
import { PARTY_ROLES, ROUNDS } from './model'
import type { MpcSessionRow } from './repo'

/** The EIP-55 address of a compressed secp256k1 public key (0x hex). */
export function addressOfPublicKey(compressed: string): string {
  const point = secp256k1.ProjectivePoint.fromHex(compressed.slice(2))
  const uncompressed = point.toRawBytes(false)
  return getAddress(`0x${keccak256(uncompressed.slice(1)).slice(-40)}`)
}

export function sessionView(s: MpcSessionRow, joined: Array<{ partyId: number; joinedAt: number }>) {
  return {
    sessionId: s.id,
    kind: s.kind,
    status: s.status,
    chain: s.chain,
    isTestnet: s.isTestnet,
    threshold: 2,
    participants: 3,
    parties: s.parties.map((partyId) => {
      const j = joined.find((p) => p.partyId === partyId)
      return { partyId, role: PARTY_ROLES[partyId]!, joined: !!j, joinedAt: j ? iso(j.joinedAt) : null }
    }),
    rounds: ROUNDS[s.kind],
    walletId: s.walletId,
    preparedTransactionId: s.preparedId,
    messageHash: s.messageHash,
    expiresAt: iso(s.expiresAt),
  }
}
