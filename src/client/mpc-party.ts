/**
 * One party of a Slipway MPC session (2-of-3 threshold ECDSA), over the relay's HTTP routes.
 * The device, the backup and Slipway's own service party all run this file: copy it into a
 * device app with the engine module (src/adapters/mpc/: port.ts, engine.ts and the engine
 * `GET /v1/mpc/config` names in `library`); it needs only `fetch` besides.
 * scripts/mpc-device.ts shows a whole device.
 *
 *   const relay = { baseUrl: 'https://slipway.example.com', token: accessToken, engine: './engines/dkls-sll' }
 *   const { keyshare, publicKey } = await runDkg(relay, sessionId, 0)
 *   const { r, s } = await runSign(relay, signSessionId, 0, keyshare)
 *
 * A key share is the party's secret: keep it encrypted where it lives (the backup share
 * encrypted to the user's recovery key), never send it anywhere. The relay sees only the
 * protocol's messages; the engine (src/adapters/mpc/port.ts) numbers their rounds.
 */
import { loadMpcEngine } from '../adapters/mpc/engine'
import type { MpcEngine, PartyChannel, PartyMessage } from '../adapters/mpc/port'

export interface Relay {
  /** Slipway's base URL, without a trailing slash */
  baseUrl: string
  /** a user's access token (device and backup), or a service token (`POST /v1/mpc/service/token`) for party 1 */
  token: string
  /** how long to wait for the other parties' messages of one round (default 60 s) */
  roundTimeoutMs?: number
  /** between inbox reads while waiting (default 40 ms) */
  pollMs?: number
  /** the engine this party runs, or its module as MPC_ENGINE names it; every party of a wallet runs the same (`GET /v1/mpc/config` `library`) */
  engine: MpcEngine | string
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
class Channel implements PartyChannel {
  private after = 0
  private readonly held: Array<{ seq: number; from: number; to: number | null; round: number; payload: string }> = []
  parties: number[] = []
  constructor(private readonly relay: Relay, private readonly sessionId: string, readonly partyId: number) {}

  async join() {
    const joined = await call(this.relay, 'POST', `${this.sessionId}/join`, { partyId: this.partyId })
    this.parties = (joined.parties as Array<{ partyId: number }>).map((p) => p.partyId).sort((a, b) => a - b)
    return joined
  }

  async send(round: number, to: number | null, payload: Uint8Array) {
    await call(this.relay, 'POST', `${this.sessionId}/msg`, { from: this.partyId, to, round, payload: b64(payload) })
  }

  /** The `count` messages of `round` for this party, in party order. */
  async receive(round: number, count: number): Promise<PartyMessage[]> {
    const deadline = Date.now() + (this.relay.roundTimeoutMs ?? 60_000)
    for (;;) {
      const mine = this.held.filter((m) => m.round === round)
      if (mine.length >= count) {
        for (const m of mine) this.held.splice(this.held.indexOf(m), 1)
        return mine.sort((a, b) => a.from - b.from).map((m) => ({ from: m.from, to: m.to, payload: unb64(m.payload) }))
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

/**
 * Runs key generation as `partyId` of a DKG session with the engine; reports the joint public key
 * to the relay and answers this party's key share (bytes) and the key (compressed, 0x hex).
 * `beforeResult` stores the share before the key is reported (registration needs every report).
 */
export async function runDkg(
  relay: Relay,
  sessionId: string,
  partyId: number,
  opts: { beforeResult?: (out: { keyshare: Uint8Array; publicKey: string }) => Promise<void> } = {},
): Promise<{ keyshare: Uint8Array; publicKey: string }> {
  const ch = new Channel(relay, sessionId, partyId)
  const joined = await ch.join()
  const engine = typeof relay.engine === 'string' ? await loadMpcEngine(relay.engine) : relay.engine
  const made = await engine.dkg(ch, joined.threshold as number)
  const out = { keyshare: made.keyshare, publicKey: hex(made.publicKey) }
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
  const engine = typeof relay.engine === 'string' ? await loadMpcEngine(relay.engine) : relay.engine
  // the pre-signature is made for this one hash and gone with the session (never twice)
  const rs = await engine.sign(ch, keyshare, new Uint8Array(Buffer.from(String(messageHash).slice(2), 'hex')), chainPath)
  const out = { r: hex(rs.r), s: hex(rs.s), messageHash: String(messageHash) }
  await ch.result({ signature: { r: out.r, s: out.s } })
  return out
}
