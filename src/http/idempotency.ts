/**
 * The `idempotent` route option: the spec's optional `Idempotency-Key` header.
 *
 * - No header: the request runs. Every answer carries `idempotency-replayed` (`true`/`false`).
 * - A key is up to 255 letters, digits, `-`, `_` (400 `IDEMPOTENCY_KEY_INVALID` otherwise, nothing runs).
 * - A key belongs to one user and one endpoint (`METHOD route`; an alias names its operation's, as
 *   `POST /v1/swap/execute-solana` shares `POST /v1/swap/execute`'s keys). The first request claims it by
 *   inserting a `running` row: the primary key lets exactly one request win, in this process or
 *   any other sharing the database. A second request with the key while it runs: 409
 *   `IDEMPOTENCY_IN_PROGRESS`; with another body (compared as canonical JSON, so field order does
 *   not matter): 409 `IDEMPOTENCY_KEY_REUSED`.
 * - A success (2xx) is kept with its status and body, and the same key and body answer it again
 *   with `idempotency-replayed: true` without running anything. A refusal or failure releases the
 *   key, so the same request can run again, but only while nothing was recorded.
 * - Bound keys: once the request records something that may move money (a payout, a custodial
 *   send), the verb binds the key to it in the same write transaction (`ctx.idempotency.bind`).
 *   A bound key is never released, whatever the request answers or if its process stops: a retry
 *   answers the record's current state, read by the replay its module registered
 *   (`registerReplay`). A verb whose recorded work came to nothing (the send never reached a
 *   node) unbinds it in the transaction that records so, and the key is released again.
 * - Kept answers are forgotten after 24 hours; an unbound `running` claim older than 2 minutes is
 *   taken over (its process stopped: no bank ramp call runs that long, every call has a time
 *   limit), a bound one is answered from its record.
 *
 * The option needs the `auth` option before it on the route: the key is scoped to the actor.
 */
import { createHash } from 'node:crypto'
import { and, eq, isNull, lt } from 'drizzle-orm'
import { Elysia, t } from 'elysia'
import type { Deps } from '../deps'
import type { Ctx, IdempotencyBinding } from '../context'
import type { Tx } from '../db/client'
import { idempotencyKeys } from '../db/schema'
import type { Actor } from './auth'
import { AppError, BadRequestError, ConflictError } from './errors'
import { stateOf } from './request-state'

export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{1,255}$/
const KEEP_MS = 24 * 3600_000
const RUNNING_MS = 120_000

interface Claim { userId: string; endpoint: string; key: string; replay: boolean; stored: boolean }
const claims = new WeakMap<Request, Claim>()

/** The current answer for a record a key was bound to (`kind:id`), or null when it is gone. */
export type Replay = (ctx: Ctx, id: string, body: unknown) => Promise<{ status: number; body: unknown } | null>
const replays = new Map<string, { replay: Replay; always: boolean }>()

/**
 * A module says how a retry reads the current state of the records its verbs bind keys to:
 * `always`, in place of the kept answer too (a payout's retry shows where it is now);
 * otherwise only when no answer was kept (the request failed or its process stopped after binding).
 */
export function registerReplay(kind: string, replay: Replay, opts: { always?: boolean } = {}) {
  replays.set(kind, { replay, always: opts.always ?? false })
}

/** JSON with object keys sorted at every level: two bodies with the same fields and values give the same text. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`
  }
  return JSON.stringify(v) ?? 'null'
}

function bodyHash(request: Request): string {
  const raw = stateOf(request).raw
  let text = ''
  if (raw?.length) {
    try {
      text = canonicalJson(JSON.parse(new TextDecoder().decode(raw)))
    } catch {
      text = new TextDecoder().decode(raw)
    }
  }
  return createHash('sha256').update(text).digest('hex')
}

export const IdempotencyHeaders = t.Object({
  'idempotency-key': t.Optional(t.String({ description: 'Up to 255 letters, digits, `-`, `_`. See the Idempotency section.', examples: ['b7f6c0de-2c1e-4f7a-9d55-1f1b2a3c4d5e'] })),
})

export function idempotency(deps: Deps) {
  const db = () => deps.database
  const release = async (request: Request) => {
    const claim = claims.get(request)
    if (!claim || claim.stored) return
    claim.stored = true
    const now = deps.clock.now()
    await db().write(async (tx) => {
      const where = and(eq(idempotencyKeys.userId, claim.userId), eq(idempotencyKeys.endpoint, claim.endpoint), eq(idempotencyKeys.key, claim.key), eq(idempotencyKeys.state, 'running'))
      // nothing recorded: the key is free for the same request
      await tx.delete(idempotencyKeys).where(and(where, isNull(idempotencyKeys.resource)))
      // bound to a record: retries answer the record's current state
      await tx.update(idempotencyKeys).set({ state: 'done', statusCode: null, response: null, expiresAt: now + KEEP_MS }).where(where)
    })
  }
  const keyWhere = (c: Claim) => and(eq(idempotencyKeys.userId, c.userId), eq(idempotencyKeys.endpoint, c.endpoint), eq(idempotencyKeys.key, c.key))
  const binding = (claim: Claim): IdempotencyBinding => ({
    bind: async (tx: Tx, resource: string) => {
      await tx.update(idempotencyKeys).set({ resource, expiresAt: deps.clock.now() + KEEP_MS }).where(keyWhere(claim))
    },
    unbind: async (tx: Tx) => {
      await tx.update(idempotencyKeys).set({ resource: null, expiresAt: deps.clock.now() + RUNNING_MS }).where(keyWhere(claim))
    },
  })
  /** The current state of the record a key is bound to, as its module answers it; null when it has none. */
  const answerFromRecord = async (resource: string, kept: boolean, actor: Actor, ctx: Ctx | undefined, body: unknown) => {
    const at = resource.indexOf(':')
    const r = replays.get(resource.slice(0, at))
    if (!r || !ctx || (kept && !r.always)) return null
    return r.replay({ ...ctx, actor }, resource.slice(at + 1), body)
  }
  return new Elysia({ name: 'slipway-idempotency', seed: deps.config.publicBaseUrl })
    .macro({
      // `{ endpoint }`: routes that are one operation under two paths (an alias) share their keys
      idempotent: (on: boolean | { endpoint: string }) => ({
        detail: on ? { 'x-idempotent': true } as Record<string, unknown> : {},
        async beforeHandle(ctx) {
          if (!on) return
          const { request, set, route } = ctx
          set.headers['idempotency-replayed'] = 'false'
          const key = request.headers.get('idempotency-key')
          if (key === null) return
          if (!IDEMPOTENCY_KEY.test(key)) {
            throw new BadRequestError('Idempotency-Key must be 1 to 255 letters, digits, - or _', { details: { code: 'IDEMPOTENCY_KEY_INVALID' } })
          }
          const actor = (ctx as unknown as { actor?: Actor }).actor
          if (!actor) throw new AppError(500, 'InternalServerError', 'Internal server error')
          const endpoint = typeof on === 'object' ? on.endpoint : `${request.method} ${route}`
          const hash = bodyHash(request)
          const now = deps.clock.now()
          const found = await db().write(async (tx) => {
            const where = and(eq(idempotencyKeys.userId, actor.userId), eq(idempotencyKeys.endpoint, endpoint), eq(idempotencyKeys.key, key))
            // forgotten answers and abandoned claims of this user make room again
            await tx.delete(idempotencyKeys).where(and(eq(idempotencyKeys.userId, actor.userId), lt(idempotencyKeys.expiresAt, now)))
            const inserted = await tx.insert(idempotencyKeys).values({
              userId: actor.userId, endpoint, key, tenantId: actor.tenantId, bodyHash: hash, state: 'running', expiresAt: now + RUNNING_MS, createdAt: now,
            }).onConflictDoNothing().returning({ key: idempotencyKeys.key })
            if (inserted.length) return null
            return tx.select().from(idempotencyKeys).where(where).get()
          })
          if (!found) {
            const claim = { userId: actor.userId, endpoint, key, replay: false, stored: false }
            claims.set(request, claim)
            const ctxOf = (ctx as unknown as { ctx?: Ctx }).ctx
            if (ctxOf) ctxOf.idempotency = binding(claim)
            // a refusal or failure is not kept: the key is free for the same request before the error answer leaves
            const state = stateOf(request)
            ;(state.beforeErrorAnswer ??= []).push(() => release(request))
            return
          }
          if (found.bodyHash !== hash) {
            throw new ConflictError('This Idempotency-Key was used with another request body', { details: { code: 'IDEMPOTENCY_KEY_REUSED' } })
          }
          // a bound claim whose process stopped (no request runs this long) is answered from its record
          const abandoned = found.state === 'running' && found.resource !== null && found.createdAt + RUNNING_MS <= now
          if (found.state === 'running' && !abandoned) {
            throw new ConflictError('A request with this Idempotency-Key is still running', { details: { code: 'IDEMPOTENCY_IN_PROGRESS' } })
          }
          claims.set(request, { userId: actor.userId, endpoint, key, replay: true, stored: true })
          const current = found.resource ? await answerFromRecord(found.resource, found.response !== null, actor, (ctx as unknown as { ctx?: Ctx }).ctx, (ctx as { body?: unknown }).body) : null
          set.headers['idempotency-replayed'] = 'true'
          if (current) {
            set.status = current.status
            return current.body
          }
          set.status = found.statusCode ?? 200
          return JSON.parse(found.response ?? 'null')
        },
        async afterHandle({ request, set, response }) {
          const claim = claims.get(request)
          if (!claim || claim.replay) return
          const status = typeof set.status === 'number' ? set.status : 200
          if (status < 200 || status >= 300) return
          const now = deps.clock.now()
          await db().write((tx) => tx.update(idempotencyKeys)
            .set({ state: 'done', statusCode: status, response: JSON.stringify(response ?? null), expiresAt: now + KEEP_MS })
            .where(and(eq(idempotencyKeys.userId, claim.userId), eq(idempotencyKeys.endpoint, claim.endpoint), eq(idempotencyKeys.key, claim.key))))
          claim.stored = true
        },
        // backstop: an answer that was neither stored nor an error (a non-2xx status set by hand)
        async afterResponse({ request }) {
          await release(request)
        },
      }),
    })
}
