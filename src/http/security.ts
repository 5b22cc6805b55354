/**
 * Route options shared by every module, as Elysia macros:
 * - `auth`: bearer access token (`'any'`, `'operator'` or `'admin'`); resolves `actor` and
 *   `ctx`, the service context `{ deps, actor, requestId }` that routes pass to one service verb
 * - `tenantSigned`: the tenant signature (HMAC); resolves `tenant`. It runs after body
 *   validation, as the spec orders.
 * - `rateLimit`: per-route, per-IP limit with the spec's headers; counted before validation.
 * - `errorStyle`: how the route writes its errors (see http/errors.ts).
 * Each also adds its part to the route's OpenAPI entry.
 */
import { Elysia } from 'elysia'
import type { Ctx } from '../context'
import type { Deps } from '../deps'
import type { Role } from '../lib/jwt'
import { ForbiddenError, TooManyRequestsError, UnauthorizedError, type ErrorStyle } from './errors'
import { socketIpOf, stateOf } from './request-state'
import { actorFromBearer, verifyTenantSignature, type Actor, type SignedTenant } from './auth'

export type AuthLevel = 'any' | 'operator' | 'admin'

export interface RateLimitOption {
  max: number
  windowSeconds: number
  /** bucket name when several routes share one limit; defaults to the route */
  name?: string
  /** password-reset routes keep their `{ error }` 429 and send no x-ratelimit headers */
  quiet?: boolean
}

export function clientIp(deps: Deps, request: Request): string {
  return deps.ipResolver.resolve(socketIpOf(request), request.headers.get('x-forwarded-for'))
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
        async resolve({ request }): Promise<{ actor: Actor; ctx: Ctx }> {
          const actor = await actorFromBearer(deps, request.headers.get('authorization'))
          if (!actor) throw new UnauthorizedError()
          if (level === 'operator' && actor.role === 'user') throw new ForbiddenError()
          if (level === 'admin' && actor.role !== 'admin') throw new ForbiddenError()
          return { actor, ctx: { deps, actor, requestId: stateOf(request).id } }
        },
      }),
      tenantSigned: (on: boolean) => ({
        detail: on ? { security: [{ tenantApiKey: [], tenantTimestamp: [], tenantSignature: [] }] } : {},
        async resolve({ request }): Promise<{ tenant: SignedTenant }> {
          // The path and query exactly as in the request line, without scheme or host.
          const url = request.url
          const pathWithQuery = url.slice(url.indexOf('/', url.indexOf('//') + 2))
          const tenant = await verifyTenantSignature(deps, {
            method: request.method,
            pathWithQuery,
            headers: request.headers,
            raw: stateOf(request).raw ?? new Uint8Array(),
          })
          return { tenant }
        },
      }),
    })
}

export type { Actor, SignedTenant, Role }
