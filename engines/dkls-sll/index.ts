/**
 * The MPC engine on Silence Laboratories' DKLs23 (`@silencelaboratories/dkls-wasm-ll-node`,
 * WebAssembly). Its licence is Silence Laboratories' non-commercial licence (docs/mpc.md,
 * "The engine"): a deployment that earns money with MPC wallets needs their commercial licence,
 * or another engine through MPC_ENGINE. The package is imported on the first run, not with
 * this module: its WebAssembly loads with the first MPC session (tests/ops/lazy-loading).
 *
 * Rounds on the relay: DKG 1 broadcast first message, 2 direct, 3 broadcast chain-code
 * commitment (32 bytes), 4 direct, 5 broadcast; signing 1 broadcast, 2 and 3 direct, 4
 * broadcast `lastMessage(hash)`, then `combine`. A pre-signature is made for one hash and
 * consumed with the session: never used twice (reuse would expose the key).
 */
import type { SllMessage, SllModule } from './sll-types'
import type { MpcEngine, PartyChannel, PartyMessage } from '../../src/adapters/mpc/port'

export const LIBRARY = '@silencelaboratories/dkls-wasm-ll-node@1.1.2'

// named through a variable: the package is installed beside this file (its own package.json),
// and Slipway type-checks without it (sll-types.ts)
const PACKAGE: string = '@silencelaboratories/dkls-wasm-ll-node'

/** The library itself (scripts/bench/mpc.ts times it without the relay). */
export const loadLibrary = () => import(PACKAGE) as Promise<SllModule>
const sll = loadLibrary

async function sendAll(ch: PartyChannel, round: number, msgs: SllMessage[]) {
  for (const m of msgs) {
    await ch.send(round, m.to_id ?? null, m.payload)
    m.free()
  }
}

async function toMessages(items: PartyMessage[]) {
  const { Message } = await sll()
  return items.map((m) => new Message(m.payload, m.from, m.to ?? undefined))
}

export const engine: MpcEngine = {
  library: LIBRARY,
  protocol: 'DKLs23',
  rounds: { dkg: 5, sign: 4 },

  async dkg(ch, threshold) {
    const { KeygenSession } = await sll()
    const n = ch.parties.length
    const others = n - 1
    const session = new KeygenSession(n, threshold, ch.partyId)
    try {
      await sendAll(ch, 1, [session.createFirstMessage()])
      const r1 = await ch.receive(1, others)
      await sendAll(ch, 2, session.handleMessages(await toMessages(r1)))
      const commitment = session.calculateChainCodeCommitment()
      await ch.send(3, null, commitment)
      const r2 = await ch.receive(2, others)
      const r3 = await ch.receive(3, others)
      // every party's chain-code commitment, in party order, this party's own included
      const commitments = ch.parties.map((id) => id === ch.partyId ? commitment : r3.find((m) => m.from === id)!.payload)
      await sendAll(ch, 4, session.handleMessages(await toMessages(r2)))
      const r4 = await ch.receive(4, others)
      await sendAll(ch, 5, session.handleMessages(await toMessages(r4), commitments))
      const r5 = await ch.receive(5, others)
      session.handleMessages(await toMessages(r5))
    } catch (err) {
      session.free()
      throw err
    }
    const share = session.keyshare()
    const out = { keyshare: share.toBytes(), publicKey: share.publicKey }
    share.free()
    return out
  },

  async sign(ch, keyshare, messageHash, chainPath) {
    const { Keyshare, SignSession } = await sll()
    const session = new SignSession(Keyshare.fromBytes(keyshare), chainPath)
    try {
      await sendAll(ch, 1, [session.createFirstMessage()])
      await sendAll(ch, 2, session.handleMessages(await toMessages(await ch.receive(1, 1))))
      await sendAll(ch, 3, session.handleMessages(await toMessages(await ch.receive(2, 1))))
      session.handleMessages(await toMessages(await ch.receive(3, 1)))
      await sendAll(ch, 4, [session.lastMessage(messageHash)])
      const [r, s] = session.combine(await toMessages(await ch.receive(4, 1))) as Uint8Array[]
      return { r: r!, s: s! }
    } catch (err) {
      session.free()
      throw err
    }
  },

  async describeShare(keyshare) {
    const { Keyshare } = await sll()
    const share = Keyshare.fromBytes(keyshare)
    try {
      return { partyId: share.partyId, publicKey: share.publicKey }
    } finally {
      share.free()
    }
  },
}
