/**
 * One party of a Slipway MPC session (DKLs23, 2-of-3), over the relay's HTTP routes.
 * The device, the backup and Slipway's own service party all run this file: copy it into
 * a device app as it is (it needs only `fetch` and `@silencelaboratories/dkls-wasm-ll-node`
 * 1.1.2, the version `GET /v1/mpc/config` names). scripts/mpc-device.ts shows a whole device.
 *
 *   const relay = { baseUrl: 'https://slipway.example.com', token: accessToken }
 *   const { keyshare, publicKey } = await runDkg(relay, sessionId, 0)
 *   const { r, s } = await runSign(relay, signSessionId, 0, keyshare)
 *
 * A key share is the party's secret: keep it encrypted where it lives (the backup share
 * encrypted to the user's recovery key), never send it anywhere. The relay sees only the
 * protocol's messages. Round numbers are the relay's: DKG 1–5, signing 1–4.
 */
import { KeygenSession, Keyshare, Message, SignSession } from '@silencelaboratories/dkls-wasm-ll-node'

export interface Relay {
  /** Slipway's base URL, without a trailing slash */
  baseUrl: string
  /** a user's access token (device and backup), or a service token (`POST /v1/mpc/service/token`) for party 1 */
  token: string
  /** how long to wait for the other parties' messages of one round (default 60 s) */
  roundTimeoutMs?: number
  /** between inbox reads while waiting (default 40 ms) */
  pollMs?: number
}

export class RelayError extends Error {
  constructor(readonly status: number, readonly body: unknown) {
    super(`relay answered ${status}: ${JSON.stringify(body)?.slice(0, 300)}`)
  }
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64')
const unb64 = (text: string) => new Uint8Array(Buffer.from(text, 'base64'))
const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`

async function call(relay: Relay, method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await fetch(`${relay.baseUrl}/v1/mpc/relay/session/${path}`, {
    method,
    headers: { authorization: `Bearer ${relay.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const out = await res.json().catch(() => null)
  if (!res.ok) throw new RelayError(res.status, out)
  return out as Record<string, any>
}

/** One session's traffic for one party: sends, and waits for the messages of a round. */
class Channel {
  private after = 0
  private readonly held: Array<{ seq: number; from: number; to: number | null; round: number; payload: string }> = []
  constructor(private readonly relay: Relay, private readonly sessionId: string, readonly partyId: number) {}

  join() {
    return call(this.relay, 'POST', `${this.sessionId}/join`, { partyId: this.partyId })
  }

  async send(round: number, msgs: Message[]) {
    for (const m of msgs) {
      await call(this.relay, 'POST', `${this.sessionId}/msg`, { from: this.partyId, to: m.to_id ?? null, round, payload: b64(m.payload) })
      m.free()
    }
  }

  async broadcast(round: number, payload: Uint8Array) {
    await call(this.relay, 'POST', `${this.sessionId}/msg`, { from: this.partyId, to: null, round, payload: b64(payload) })
  }

  /** The `count` messages of `round` for this party, in party order. */
  async receive(round: number, count: number) {
    const deadline = Date.now() + (this.relay.roundTimeoutMs ?? 60_000)
    for (;;) {
      const mine = this.held.filter((m) => m.round === round)
      if (mine.length >= count) {
        for (const m of mine) this.held.splice(this.held.indexOf(m), 1)
        return mine.sort((a, b) => a.from - b.from)
      }
      const inbox = await call(this.relay, 'GET', `${this.sessionId}/inbox?partyId=${this.partyId}&after=${this.after}`)
      this.held.push(...inbox.messages)
      this.after = inbox.last
      if (inbox.messages.length === 0) {
        if (Date.now() > deadline) throw new Error(`round ${round}: ${mine.length} of ${count} messages arrived in time`)
        await new Promise((resolve) => setTimeout(resolve, this.relay.pollMs ?? 40))
      }
    }
  }

  result(body: Record<string, unknown>) {
    return call(this.relay, 'POST', `${this.sessionId}/result`, { partyId: this.partyId, ...body })
  }

  msghash() {
    return call(this.relay, 'GET', `${this.sessionId}/msghash`)
  }
}

const toMessages = (items: Array<{ from: number; to: number | null; payload: string }>) =>
  items.map((m) => new Message(unb64(m.payload), m.from, m.to ?? undefined))

/**
 * Runs key generation as `partyId` of a 3-party DKG session; reports the joint public key
 * to the relay and answers this party's key share (bytes) and the key (compressed, 0x hex).
 * `beforeResult` stores the share before the key is reported (registration needs every report).
 */
export async function runDkg(relay: Relay, sessionId: string, partyId: number, opts: { beforeResult?: (out: { keyshare: Uint8Array; publicKey: string }) => Promise<void> } = {}): Promise<{ keyshare: Uint8Array; publicKey: string }> {
  const ch = new Channel(relay, sessionId, partyId)
  const joined = await ch.join()
  const n = joined.participants as number
  const others = n - 1
  const session = new KeygenSession(n, joined.threshold as number, partyId)
  try {
    await ch.send(1, [session.createFirstMessage()])
    const r1 = await ch.receive(1, others)
    await ch.send(2, session.handleMessages(toMessages(r1)))
    const commitment = session.calculateChainCodeCommitment()
    await ch.broadcast(3, commitment)
    const r2 = await ch.receive(2, others)
    const r3 = await ch.receive(3, others)
    // every party's chain-code commitment, in party order, this party's own included
    const commitments: Uint8Array[] = []
    for (let id = 0; id < n; id++) commitments.push(id === partyId ? commitment : unb64(r3.find((m) => m.from === id)!.payload))
    await ch.send(4, session.handleMessages(toMessages(r2)))
    const r4 = await ch.receive(4, others)
    await ch.send(5, session.handleMessages(toMessages(r4), commitments))
    const r5 = await ch.receive(5, others)
    session.handleMessages(toMessages(r5))
  } catch (err) {
    session.free()
    throw err
  }
  const share = session.keyshare()
  const out = { keyshare: share.toBytes(), publicKey: hex(share.publicKey) }
  share.free()
  // keep the share (encrypted) before saying the key is made: a share lost after that would leave a wallet nobody can sign for
  await opts.beforeResult?.(out)
  await ch.result({ publicKey: out.publicKey })
  return out
}

/**
 * Signs the session's message hash as `partyId` with its key share, with the one other
 * party the session names; reports R and S (Slipway verifies them and broadcasts).
 * `expectHash`, when given, must equal the relay's hash, or nothing is signed.
 */
export async function runSign(relay: Relay, sessionId: string, partyId: number, keyshare: Uint8Array, expectHash?: string): Promise<{ r: string; s: string; messageHash: string }> {
  const ch = new Channel(relay, sessionId, partyId)
  await ch.join()
  const { messageHash, chainPath } = await ch.msghash()
  if (expectHash !== undefined && expectHash.toLowerCase() !== String(messageHash).toLowerCase()) throw new Error('the relay asks to sign another hash than expected')
  const session = new SignSession(Keyshare.fromBytes(keyshare), chainPath)
  let rs: Uint8Array[]
  try {
    await ch.send(1, [session.createFirstMessage()])
    await ch.send(2, session.handleMessages(toMessages(await ch.receive(1, 1))))
    await ch.send(3, session.handleMessages(toMessages(await ch.receive(2, 1))))
    session.handleMessages(toMessages(await ch.receive(3, 1)))
    // the pre-signature is used for this one hash and gone with the session (never twice)
    await ch.send(4, [session.lastMessage(new Uint8Array(Buffer.from(String(messageHash).slice(2), 'hex')))])
    rs = session.combine(toMessages(await ch.receive(4, 1))) as Uint8Array[]
  } catch (err) {
    session.free()
    throw err
  }
  const out = { r: hex(rs[0]!), s: hex(rs[1]!), messageHash: String(messageHash) }
  await ch.result({ signature: { r: out.r, s: out.s } })
  return out
}
