/**
 * The threshold ECDSA engine behind Slipway's MPC wallets (docs/mpc.md, "The engine"). The
 * relay, the service party, the device client (src/client/mpc-party.ts) and the scripts speak
 * only to this interface: the protocol's own messages are opaque bytes carried by the relay,
 * and an engine numbers its rounds itself (at most `MAX_ROUNDS` each way, the relay's bound).
 *
 * An engine is a module that exports `engine: MpcEngine`. Slipway carries none (engine.ts says
 * why): a deployment holding a licence for one points `MPC_ENGINE` at its module (a path or an
 * installed package name, e.g. ./engines/dkls-sll), loaded on first use, and every party
 * (devices, backups) must run the same `library`.
 */

/** The relay bounds an engine must fit: rounds per run, and messages of one run. */
export const MAX_ROUNDS = { dkg: 5, sign: 4 } as const

/** One received protocol message. */
export interface PartyMessage { from: number; to: number | null; payload: Uint8Array }

/** One session's traffic for one party, over the relay. */
export interface PartyChannel {
  readonly partyId: number
  /** the session's parties (DKG: all of them; signing: the two that sign), ascending */
  readonly parties: readonly number[]
  /** sends `payload` in `round` to one party, or to every other party when `to` is null */
  send(round: number, to: number | null, payload: Uint8Array): Promise<void>
  /** waits for `count` messages of `round` addressed to this party (or broadcast), in party order */
  receive(round: number, count: number): Promise<PartyMessage[]>
}

export interface DkgOutput {
  /** this party's key share, the engine's own encoding: the party's secret */
  keyshare: Uint8Array
  /** the joint public key, compressed secp256k1 (33 bytes) */
  publicKey: Uint8Array
}

export interface MpcEngine {
  /** the threshold ECDSA library and version every party must run (`GET /v1/mpc/config` `library`) */
  readonly library: string
  /** the protocol it implements */
  readonly protocol: 'DKLs23'
  /** relay rounds one DKG and one signature take */
  readonly rounds: { dkg: number; sign: number }
  /** key generation as `ch.partyId` among `ch.parties`, any `threshold` of which sign */
  dkg(ch: PartyChannel, threshold: number): Promise<DkgOutput>
  /** a signature of the 32-byte `messageHash` with the share, with the other party of `ch.parties`; R and S, 32 bytes each */
  sign(ch: PartyChannel, keyshare: Uint8Array, messageHash: Uint8Array, chainPath: string): Promise<{ r: Uint8Array; s: Uint8Array }>
  /** the party and the joint public key a share belongs to (never its secret) */
  describeShare(keyshare: Uint8Array): Promise<{ partyId: number; publicKey: Uint8Array }>
}

/** Throws unless `candidate` has an engine's shape (a module named by MPC_ENGINE is checked so). */
export function assertEngine(candidate: unknown, from: string): asserts candidate is MpcEngine {
  const e = candidate as Partial<MpcEngine> | undefined
  const ok = !!e && typeof e.library === 'string' && e.library.length > 0 && e.protocol === 'DKLs23'
    && typeof e.dkg === 'function' && typeof e.sign === 'function' && typeof e.describeShare === 'function'
    && !!e.rounds && Number.isInteger(e.rounds.dkg) && Number.isInteger(e.rounds.sign)
    && e.rounds.dkg >= 1 && e.rounds.dkg <= MAX_ROUNDS.dkg && e.rounds.sign >= 1 && e.rounds.sign <= MAX_ROUNDS.sign
  if (!ok) throw new Error(`${from}: not an MPC engine (it must export \`engine\` with library, protocol 'DKLs23', rounds within ${JSON.stringify(MAX_ROUNDS)}, dkg, sign and describeShare)`)
}
