/**
 * Route options shared by every module, as Elysia macros:
 * - `auth`: bearer access token (`'any'`, `'operator'` or `'admin'`); resolves `actor` and
 *   `ctx`, the service context `{ deps, actor, tenant, requestId }` that routes pass to one service verb
 * - `tenantSigned`: the tenant signature (HMAC); resolves `tenant`. It runs after body
 *   validation, as the spec orders.
 * - `tenantSignedWrite`: the same, its replay row recorded by the verb's own write; resolves
 *   `tenant` and `signature`, which the route runs its verb with (`settleSignature`).
 * - `signedUser`: both credentials on one route (the lending group): the tenant signature and
 *   the bearer token of a user of that same tenant; resolves `tenant`, `actor` and `ctx`, and
 *   documents one security requirement holding both schemes.
 * - `rateLimit`: per-route, per-IP limit with the spec's headers; counted before validation.
 * - `errorStyle`: how the route writes its errors (see http/errors.ts).
 * - `adminBasic`: operator pages a browser loads (the queue dashboard): a platform admin by
 *   HTTP Basic or bearer token; refused with 401 and `WWW-Authenticate: Basic`.
 * Each also adds its part to the route's OpenAPI entry.
 */
import { Elysia } from 'elysia'
import type { Ctx } from '../context'
import type { Deps } from '../deps'
import type { Role } from '../lib/jwt'
import { andThen, type Maybe } from '../lib/maybe'
import { ForbiddenError, TooManyRequestsError, UnauthorizedError, type ErrorStyle } from './errors'
import { socketIpOf, stateOf } from './request-state'
import type { SignatureRecord } from '../context'
import { callerFromBearer, isPlatformAdmin, verifyTenantSignature, verifyTenantSignatureInWrite, type Actor, type SignedTenant } from './auth'

export type AuthLevel = 'any' | 'operator' | 'admin'

export interface RateLimitOption {
  max: number
  windowSeconds: number
  /** bucket name when several routes share one limit; defaults to the route */
  name?: string
  /** password-reset routes answer 429 with a plain message and send no x-ratelimit headers */
  quiet?: boolean
}

export function clientIp(deps: Deps, request: Request): string {
  return deps.ipResolver.resolve(socketIpOf(request), request.headers.get('x-forwarded-for'))
}

/** Failed credentials allowed per client IP and minute on the `adminBasic` pages; then 429 without checking. */
export const ADMIN_PAGE_FAILED_TRIES = 20
const ADMIN_PAGE_WINDOW_MS = 60_000
const ADMIN_PAGE_REALM = 'Basic realm="Slipway queues", charset="UTF-8"'
const ADMIN_PAGE_HEADERS = { 'cache-control': 'no-store', 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' }

/**
 * The `adminBasic` check: throws the refusal unless a platform admin asks. Only failed
 * tries count toward the limit, so a signed-in admin's polling is never locked out; once
 * the limit is reached the credentials are not even checked (no argon2 work for a guesser).
 * The refusals are the standard error envelope the route documents, with headers for
 * browsers: `WWW-Authenticate: Basic` makes them prompt, and nothing is cached or framed.
 */
async function checkAdminPage(deps: Deps, request: Request, headers: Record<string, string | number>): Promise<void> {
  const bucket = `admin-basic|${clientIp(deps, request)}`
  const limit = deps.rateLimiter.peek(bucket, ADMIN_PAGE_FAILED_TRIES, ADMIN_PAGE_WINDOW_MS)
  if (!limit.allowed) {
    Object.assign(headers, ADMIN_PAGE_HEADERS)
    throw new TooManyRequestsError(limit.resetSeconds, 'Too many failed attempts')
  }
  const authorization = request.headers.get('authorization')
  if (await isPlatformAdmin(deps, authorization)) return
  // A request without credentials is a browser's first load, not a failed try.
  if (authorization) deps.rateLimiter.hit(bucket, ADMIN_PAGE_FAILED_TRIES, ADMIN_PAGE_WINDOW_MS)
  Object.assign(headers, ADMIN_PAGE_HEADERS, { 'www-authenticate': ADMIN_PAGE_REALM })
  throw new UnauthorizedError('Platform admin credentials required')
}

export function security(deps: Deps) {
  return new Elysia({ name: 'slipway-security', seed: deps.config.publicBaseUrl })
    .macro({
      errorStyle: (style: ErrorStyle) => ({ detail: { 'x-error-style': style } as Record<string, unknown> }),
      rateLimit: (opt: RateLimitOption) => ({
        detail: { 'x-rate-limit': `${opt.max} per ${opt.windowSeconds} s per client IP` } as Record<string, unknown>,
        transform({ request, set, route }) {
          const ip = clientIp(deps, request)
          const r = deps.rateLimiter.hit(`${opt.name ?? `${request.method} ${route}`}|${ip}`, opt.max, opt.windowSeconds * 1000)
          if (!opt.quiet) {
            set.headers['x-ratelimit-limit'] = String(r.limit)
            set.headers['x-ratelimit-remaining'] = String(r.remaining)
            set.headers['x-ratelimit-reset'] = String(r.resetSeconds)
          }
          if (!r.allowed) {
            const err = new TooManyRequestsError(r.resetSeconds, opt.quiet ? 'Too many requests, please try again later' : undefined)
            if (opt.quiet) throw Object.assign(err, { retryAfterSeconds: r.resetSeconds })
            throw err
          }
        },
      }),
      auth: (level: AuthLevel) => ({
        detail: { security: [{ bearerAuth: [] }] },
        // `request.headers.get`, not the `headers` context: naming `headers` makes Elysia copy every header into an object on each request.
        // The service context is built here, once per request: routes hand `ctx` to one service verb.
        // Not an async function: on a local file the caller is read without a promise, and Elysia awaits
        // what a resolve returning a call gives (its `isAsync` reads the function's text), value or promise.
        resolve({ request }): Maybe<{ actor: Actor; ctx: Ctx }> {
          return andThen(callerFromBearer(deps, request.headers.get('authorization')), (caller) => {
            if (!caller) throw new UnauthorizedError()
            const { actor, tenant } = caller
            if (level === 'operator' && actor.role === 'user') throw new ForbiddenError()
            if (level === 'admin' && actor.role !== 'admin') throw new ForbiddenError()
            return { actor, ctx: { deps, actor, tenant, requestId: stateOf(request).id } }
          })
        },
      }),
      adminBasic: (on: boolean) => ({
        detail: (on ? { security: [{ adminBasic: [] }, { bearerAuth: [] }] } : {}) as Record<string, unknown>,
        async beforeHandle({ request, set }) {
          if (on) await checkAdminPage(deps, request, set.headers)
        },
      }),
      tenantSigned: (on: boolean) => ({
        detail: on ? { security: [{ tenantApiKey: [], tenantTimestamp: [], tenantSignature: [] }] } : {},
        async resolve({ request }): Promise<{ tenant: SignedTenant }> {
          return { tenant: await signedTenant(deps, request) }
        },
      }),
      tenantSignedWrite: (on: boolean) => ({
        detail: on ? { security: [{ tenantApiKey: [], tenantTimestamp: [], tenantSignature: [] }] } : {},
        resolve({ request }): Promise<{ tenant: SignedTenant; signature: SignatureRecord }> {
          return verifyTenantSignatureInWrite(deps, signedRequest(request))
        },
      }),
      signedUser: (on: boolean) => ({
        // one requirement object: OpenAPI reads it as "all of these", where two objects would mean "either"
        detail: on ? { security: [{ bearerAuth: [], tenantApiKey: [], tenantTimestamp: [], tenantSignature: [] }] } : {},
        async resolve({ request }): Promise<{ tenant: SignedTenant; actor: Actor; ctx: Ctx }> {
          const tenant = await signedTenant(deps, request)
          const caller = await callerFromBearer(deps, request.headers.get('authorization'))
          if (!caller) throw new UnauthorizedError()
          const { actor } = caller
          // Both credentials name a tenant. A bearer of another tenant's user (or of a platform
          // admin, who has none) must not act under this signature, or one tenant's API secret
          // would reach every tenant's users: the same 401 as any other bearer problem.
          if (actor.tenantId !== tenant.id) throw new UnauthorizedError()
          return { tenant, actor, ctx: { deps, actor, tenant, requestId: stateOf(request).id } }
        },
      }),
    })
}

/** The tenant whose signature the request carries (http/auth.ts checks it). */
function signedTenant(deps: Deps, request: Request): Promise<SignedTenant> {
  return verifyTenantSignature(deps, signedRequest(request))
}

function signedRequest(request: Request) {
  // The path and query exactly as in the request line, without scheme or host.
  const url = request.url
  const pathWithQuery = url.slice(url.indexOf('/', url.indexOf('//') + 2))
  return { method: request.method, pathWithQuery, headers: request.headers, raw: stateOf(request).raw ?? new Uint8Array() }
}

export type { Actor, SignedTenant, Role }
