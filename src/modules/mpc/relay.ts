/**
 * The relay (`/v1/mpc/relay/session/{id}/...`): the parties of one session hand each other
 * the protocol's opaque messages through it. Everything lives in the database, so the
 * parties' calls may land on any API process of a deployment (tests/mpc/two-processes).
 *
 * Rules, each checked in the write transaction that stores a message:
 * - the sender must have joined as `from`, and `to` must be another party of the session;
 * - a party sends its rounds in order: a round below its last one, or one past the next,
 *   answers 409 MPC_MESSAGE_OUT_OF_ORDER; the same (round, from, to) again answers 409
 *   MPC_MESSAGE_REPLAYED (a unique index makes that hold between processes too);
 * - payloads are at most MAX_MESSAGE_BYTES, sessions hold at most MAX_SESSION_MESSAGES (413 / 409);
 * - an expired session answers 410 MPC_SESSION_EXPIRED to joins, messages, inbox reads and results.
 */
import type { Deps } from '../../deps'
import { AppError, BadRequestError, ConflictError, ForbiddenError } from '../../lib/errors'
import { uniqueViolation } from '../../db/client'
import { iso } from '../../lib/clock'
import { requireOpen, requireParty, sessionFor, type RelayCaller } from './access'
import { MAX_MESSAGE_BYTES, MAX_SESSION_MESSAGES, ROUNDS, type InboxQuery, type MessageBody, type ResultBody } from './model'
import * as repo from './repo'
import { acceptSignature } from './signing'
import { addressOfPublicKey, sessionView } from './views'

const INBOX_LIMIT = 50

export async function join(deps: Deps, caller: RelayCaller, id: string, partyId: number) {
  const s = await sessionFor(deps, caller, id)
  requireParty(caller, s, partyId)
  requireOpen(deps, s)
  await deps.database.write((tx) => repo.joinParty(tx, s.tenantId, s.id, partyId, deps.clock.now()))
  return sessionView(s, await repo.listParties(deps.database.db, s.tenantId, s.id))
}

export async function parties(deps: Deps, caller: RelayCaller, id: string) {
  const s = await sessionFor(deps, caller, id)
  const joined = await repo.listParties(deps.database.db, s.tenantId, s.id)
  return { sessionId: s.id, parties: sessionView(s, joined).parties }
}

export async function postMessage(deps: Deps, caller: RelayCaller, id: string, m: MessageBody) {
  const s = await sessionFor(deps, caller, id)
  requireParty(caller, s, m.from)
  requireOpen(deps, s)
  const to = m.to ?? null
  if (to !== null && (to === m.from || !s.parties.includes(to))) throw new BadRequestError(`to: party ${to} is not another party of this session`, { code: 'MPC_BAD_RECIPIENT' })
  const rounds = ROUNDS[s.kind]
  if (m.round > rounds) throw new BadRequestError(`round: a ${s.kind} session has rounds 1 to ${rounds}`, { code: 'MPC_BAD_ROUND' })
  const bytes = Buffer.from(m.payload, 'base64')
  if (bytes.length > MAX_MESSAGE_BYTES) throw new AppError(413, 'Payload Too Large', `payload: at most ${MAX_MESSAGE_BYTES} bytes`, { code: 'MPC_MESSAGE_TOO_LARGE' })
  try {
    const seq = await deps.database.write(async (tx) => {
      const joined = await repo.listParties(tx, s.tenantId, s.id)
      if (!joined.some((p) => p.partyId === m.from)) throw new ForbiddenError(`Join the session as party ${m.from} first`, { code: 'MPC_NOT_JOINED' })
      const state = await repo.messageState(tx, s.tenantId, s.id, m.from)
      if (state.count >= MAX_SESSION_MESSAGES) throw new ConflictError(`This session already holds ${MAX_SESSION_MESSAGES} messages, its limit`, { code: 'MPC_SESSION_FULL' })
      if (m.round < state.lastRound || m.round > state.lastRound + 1) {
        throw new ConflictError(`Party ${m.from} is at round ${state.lastRound}: its next message is of round ${state.lastRound} or ${state.lastRound + 1}`, { code: 'MPC_MESSAGE_OUT_OF_ORDER' })
      }
      return repo.insertMessage(tx, {
        sessionId: s.id, tenantId: s.tenantId, fromParty: m.from, toParty: to ?? repo.BROADCAST, round: m.round, payload: bytes.toString('base64'), createdAt: deps.clock.now(),
      })
    })
    return { seq }
  } catch (err) {
    if (uniqueViolation(err).includes('mpc_messages')) {
      throw new ConflictError(
        `Party ${m.from} already sent its round ${m.round} message${to === null ? '' : ` to party ${to}`}`,
        { code: 'MPC_MESSAGE_REPLAYED' },
      )
    }
    throw err
  }
}

export async function inbox(deps: Deps, caller: RelayCaller, id: string, q: InboxQuery) {
  const s = await sessionFor(deps, caller, id)
  requireParty(caller, s, q.partyId)
  requireOpen(deps, s)
  const after = q.after ?? 0
  const rows = await repo.inbox(deps.database.db, s.tenantId, s.id, q.partyId, after, q.round, INBOX_LIMIT)
  return {
    sessionId: s.id,
    messages: rows.map((r) => ({ seq: r.seq, from: r.fromParty, to: r.toParty === repo.BROADCAST ? null : r.toParty, round: r.round, payload: r.payload })),
    last: rows.at(-1)?.seq ?? after,
  }
}

export async function msghash(deps: Deps, caller: RelayCaller, id: string) {
  const s = await sessionFor(deps, caller, id)
  if (s.kind !== 'sign' || !s.messageHash) throw new BadRequestError('A DKG session signs nothing: only signing sessions have a message hash', { code: 'MPC_NOT_A_SIGNING_SESSION' })
  return { sessionId: s.id, messageHash: s.messageHash, chainPath: 'm' }
}

export async function postResult(deps: Deps, caller: RelayCaller, id: string, body: ResultBody) {
  const s = await sessionFor(deps, caller, id)
  requireParty(caller, s, body.partyId)
  requireOpen(deps, s)
  if (s.kind === 'dkg') {
    if (!body.publicKey || body.signature) throw new BadRequestError('A DKG result is `publicKey` (and no signature)', { code: 'MPC_BAD_RESULT' })
    await dkgResult(deps, s, body.partyId, body.publicKey.toLowerCase())
  } else {
    if (!body.signature || body.publicKey) throw new BadRequestError('A signing result is `signature` { r, s } (and no public key)', { code: 'MPC_BAD_RESULT' })
    await acceptSignature(deps, s, body.partyId, body.signature)
  }
  return results(deps, caller, id)
}

/** Stores one party's key; when the last party reports, the session completes (all agree) or fails (they differ). */
async function dkgResult(deps: Deps, s: repo.MpcSessionRow, partyId: number, publicKey: string) {
  await deps.database.write(async (tx) => {
    const now = deps.clock.now()
    const stored = await repo.insertResult(tx, { sessionId: s.id, partyId, tenantId: s.tenantId, publicKey, signatureR: null, signatureS: null, createdAt: now })
    const all = await repo.listResults(tx, s.tenantId, s.id)
    if (!stored && all.find((r) => r.partyId === partyId)?.publicKey !== publicKey) throw new ConflictError(`Party ${partyId} already reported another public key`, { code: 'MPC_RESULT_CONFLICT' })
    if (all.length < s.parties.length) return
    const keys = new Set(all.map((r) => r.publicKey))
    if (keys.size === 1) await repo.updateSession(tx, s.tenantId, s.id, { status: 'completed', publicKey, updatedAt: now })
    else await repo.updateSession(tx, s.tenantId, s.id, { status: 'failed', failureReason: 'The parties reported different public keys', updatedAt: now })
  })
}

export async function results(deps: Deps, caller: RelayCaller, id: string) {
  const s0 = await sessionFor(deps, caller, id)
  const s = (await repo.findSession(deps.database.db, s0.tenantId, s0.id)) ?? s0
  const rows = await repo.listResults(deps.database.db, s.tenantId, s.id)
  return {
    sessionId: s.id, kind: s.kind, status: s.status,
    results: rows.map((r) => ({ partyId: r.partyId, publicKey: r.publicKey, signature: r.signatureR && r.signatureS ? { r: r.signatureR, s: r.signatureS } : null, at: iso(r.createdAt) })),
    publicKey: s.kind === 'dkg' ? s.publicKey : null,
    address: s.kind === 'dkg' && s.publicKey ? addressOfPublicKey(s.publicKey) : null,
    walletId: s.kind === 'dkg' ? s.registeredWalletId : s.walletId,
    transactionId: s.transactionId,
    txHash: s.txHash,
    failureReason: s.failureReason,
  }
}

